package wire

import (
	"encoding/json"
	"testing"
)

// Messages streams usage twice, the second time as totals: the later
// counts replace the earlier. The other APIs report once.
func TestTurnUsage(t *testing.T) {
	start := json.RawMessage(`{"input_tokens":25,"cache_read_input_tokens":3,"output_tokens":1}`)
	delta := json.RawMessage(`{"output_tokens":15}`)
	u := TurnUsage(Messages, TurnUsage(Messages, nil, start), delta)
	var got map[string]int
	if err := json.Unmarshal(u, &got); err != nil {
		t.Fatal(err)
	}
	if got["input_tokens"] != 25 || got["output_tokens"] != 15 || got["cache_read_input_tokens"] != 3 || len(got) != 3 {
		t.Errorf("messages: %s", u)
	}
	if u := TurnUsage(Messages, start, json.RawMessage(`{"input_tokens":30,"output_tokens":20}`)); string(u) != `{"cache_read_input_tokens":3,"input_tokens":30,"output_tokens":20}` {
		t.Errorf("messages, totals with input: %s", u)
	}
	if u := TurnUsage(Chat, start, delta); string(u) != string(delta) {
		t.Errorf("chat: %s", u)
	}
	if u := TurnUsage(Messages, start, json.RawMessage(`null`)); string(u) != string(start) {
		t.Errorf("null usage: %s", u)
	}
}
