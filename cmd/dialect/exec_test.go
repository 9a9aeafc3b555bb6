package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func runExecCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, append([]string{"exec"}, args...))
	return code, out.String(), errb.String()
}

func TestExecCmdCalc(t *testing.T) {
	code, out, _ := runExecCmd("calc", "5", "feet", "to", "meters")
	if code != 0 || out != "5 ft = 1.524 m\n" {
		t.Errorf("calc: %d %q", code, out)
	}
	code, out, _ = runExecCmd("calc", "--json", "1/0")
	var o execOutput
	if code != 1 || json.Unmarshal([]byte(out), &o) != nil || o.Code != "MATH_ERROR" {
		t.Errorf("calc --json 1/0: %d %q", code, out)
	}
	code, _, errs := runExecCmd("calc", "2 +* 3")
	if code != 1 || !strings.Contains(errs, "MALFORMED_SYNTAX") {
		t.Errorf("calc syntax: %d %q", code, errs)
	}
	if code, _, _ := runExecCmd("calc"); code != 2 {
		t.Errorf("calc without expression: %d", code)
	}
	if code, _, _ := runExecCmd("launch"); code != 2 {
		t.Errorf("unknown executor: %d", code)
	}
}

func TestExecCmdFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>T</title><h1>Hi</h1><p>there</p>")
	}))
	defer srv.Close()
	code, _, errs := runExecCmd("fetch", srv.URL)
	if code != 1 || !strings.Contains(errs, "BLOCKED_ADDRESS") {
		t.Errorf("loopback without --allow-private: %d %q", code, errs)
	}
	code, out, _ := runExecCmd("fetch", "--allow-private", srv.URL)
	if code != 0 || out != "Title: T\n\n# Hi\n\nthere\n\n" {
		t.Errorf("fetch: %d %q", code, out)
	}
	code, out, _ = runExecCmd("fetch", "--allow-private", "--offset", "6", srv.URL, "--json")
	var o execOutput
	if code != 0 || json.Unmarshal([]byte(out), &o) != nil || o.Text != "there\n" {
		t.Errorf("fetch --offset: %d %q", code, out)
	}
}
