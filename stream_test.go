package dialect

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

func TestStreamMatchesRun(t *testing.T) {
	msg := "Let me gather some context.\n/recall project notes\n/search conversations about deadline\n"
	ref := openRuntime(t, "")
	want, err := ref.Run(context.Background(), Message{Text: msg})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 3, 7, 64} {
		rt := openRuntime(t, "")
		var got []Result
		s := rt.NewStream(context.Background(), Message{}, func(r Result) { got = append(got, r) })
		for i := 0; i < len(msg); i += size {
			s.WriteString(msg[i:min(i+size, len(msg))])
		}
		closed, err := s.Close()
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		c, _ := json.Marshal(closed)
		if string(a) != string(b) || string(b) != string(c) {
			t.Errorf("chunk %d:\n run    %s\n stream %s\n close  %s", size, a, b, c)
		}
	}
}

func TestStreamEarlyExecution(t *testing.T) {
	rt := openRuntime(t, "[detect]\nearly_execution = true\nconfirm_tokens = 3\n")
	ctx := context.Background()
	if _, err := rt.Run(ctx, Message{Text: "Saving.\n/recall notes + \"deadline friday\"\n"}); err != nil {
		t.Fatal(err)
	}

	s := rt.NewStream(ctx, Message{}, nil)
	s.WriteString("/do /search friday\nI will keep talking while that runs, here.\n")
	res, err := s.Close()
	if err != nil || len(res) != 1 || res[0].Status != StatusOK {
		t.Fatalf("early /do search: %+v %v", res, err)
	}

	s = rt.NewStream(ctx, Message{}, nil)
	s.WriteString("/do /search friday\nI will keep talking while that runs. Actually, never mind.\n")
	res, _ = s.Close()
	if len(res) != 1 || res[0].Status != StatusSkipped {
		t.Errorf("withdrawn early action: %+v", res)
	}
}

func TestStreamRunsEarlyBeforeClose(t *testing.T) {
	rt := openRuntime(t, "[detect]\nearly_execution = true\nconfirm_tokens = 3\n")
	ctx := context.Background()
	s := rt.NewStream(ctx, Message{Session: "early"}, nil)
	s.WriteString("/do /calc 2 + 2\nthen I keep writing for a while ")
	s.WriteString("and more words here\n")
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.early)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the /do action did not start before the message ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
