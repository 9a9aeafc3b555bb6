package middleware

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/pattern-dialect/dialect/internal/wire"
)

// merger turns the event streams of several model turns into the one
// stream the client receives, in the API's own format: the first turn's
// events pass as they came (their text rewritten when HideActions hides
// some); each later turn's opening events are dropped and its text events
// are rewritten to continue the first turn's message (its id, item, block
// and indices; Responses' sequence numbers run on). The events that close
// a turn's text (finish chunk, *.done and response.completed,
// content_block_stop, message_delta, message_stop, [DONE]) are held until
// the turn's actions have run: when another turn follows they are
// dropped, and after the last turn they go out with the whole text and
// the usage summed over the turns.
type merger struct {
	api  wire.API
	turn int

	ended bool // this turn's text is complete: hold what follows

	// Chat Completions
	chatID string // the first turn's chunk id

	// Responses
	seq     int64           // the next sequence number the client gets
	itemID  string          // the first turn's message item
	outIdx  int64           // its output_index
	nextOut int64           // the client's next free output_index
	outMap  map[int64]int64 // this turn's output_index → the client's

	// Messages
	textIdx   int64           // the client's text block being continued
	nextBlock int64           // the client's next free block index
	blockMap  map[int64]int64 // this turn's block index → the client's
	textBlock map[int64]bool  // this turn's text blocks
}

func newMerger(api wire.API) *merger {
	return &merger{api: api, outMap: map[int64]int64{}, blockMap: map[int64]int64{}, textBlock: map[int64]bool{}, textIdx: -1}
}

// holds reports whether ev closes the turn's text or follows that; it
// also starts a new turn's bookkeeping at the turn's first event.
func (g *merger) holds(ev wire.Event, in wire.Info) bool {
	if g.ended {
		return true
	}
	switch g.api {
	case wire.Chat:
		g.ended = in.End || in.Done
	case wire.Responses:
		g.ended = in.End || in.Done
	case wire.Messages:
		if in.Type == "content_block_stop" {
			g.ended = g.textBlock[jsonInt(ev.Data, "index")]
		} else {
			g.ended = in.End || in.Done
		}
	}
	return g.ended
}

// event is what the client gets for one event that is not held: nil to
// drop it. shown is the event's text as the client sees it; rewrite says
// it differs from what the event carries.
func (g *merger) event(ev wire.Event, in wire.Info, shown string, rewrite bool) []byte {
	switch g.api {
	case wire.Chat:
		return g.chatEvent(ev, shown, rewrite)
	case wire.Responses:
		return g.respEvent(ev, in, shown, rewrite)
	}
	return g.msgEvent(ev, in, shown, rewrite)
}

// newTurn resets what is per turn; called by the loop through turn.
func (g *merger) reset() {
	g.ended = false
	g.outMap = map[int64]int64{}
	g.blockMap = map[int64]int64{}
	g.textBlock = map[int64]bool{}
}

func (g *merger) chatEvent(ev wire.Event, shown string, rewrite bool) []byte {
	if g.chatID == "" {
		g.chatID = jsonString(ev.Data, "id")
	}
	if g.turn == 1 && !rewrite {
		return ev.Raw
	}
	doc, err := decode(ev.Data)
	if err != nil {
		return ev.Raw
	}
	if g.turn > 1 {
		doc["id"] = g.chatID
	}
	if rewrite {
		for _, ch := range list(doc["choices"]) {
			c, _ := ch.(map[string]any)
			if c == nil || num(c["index"]) != 0 {
				continue
			}
			if d, ok := c["delta"].(map[string]any); ok {
				d["content"] = shown
			}
		}
	}
	return wire.Format("", wire.Raw(doc))
}

func (g *merger) respEvent(ev wire.Event, in wire.Info, shown string, rewrite bool) []byte {
	doc, err := decode(ev.Data)
	if err != nil {
		return ev.Raw
	}
	idx, hasIdx := doc["output_index"]
	switch in.Type {
	case "response.created", "response.in_progress":
		if g.turn > 1 {
			return nil
		}
	case "response.output_item.added":
		item, _ := doc["item"].(map[string]any)
		i := num(idx)
		if item != nil && item["type"] == "message" && (g.itemID == "" || g.turn > 1) {
			if g.itemID == "" {
				g.itemID, _ = item["id"].(string)
				g.outIdx = i
				g.outMap[i] = i
				g.nextOut = max(g.nextOut, i+1)
				break
			}
			g.outMap[i] = g.outIdx
			return nil
		}
		if g.turn == 1 {
			g.outMap[i] = i
			g.nextOut = max(g.nextOut, i+1)
		} else {
			g.outMap[i] = g.nextOut
			g.nextOut++
		}
	case "response.content_part.added":
		if g.turn > 1 && g.outMap[num(idx)] == g.outIdx {
			return nil
		}
	case "response.output_text.delta":
		if g.outMap[num(idx)] == g.outIdx {
			doc["item_id"] = g.itemID
			doc["content_index"] = 0
			if rewrite {
				doc["delta"] = shown
			}
		}
	}
	if hasIdx {
		if to, ok := g.outMap[num(idx)]; ok {
			doc["output_index"] = to
		}
	}
	return g.respOut(ev.Name, doc, ev.Raw, g.turn == 1 && !rewrite)
}

// respOut frames a Responses event with the next sequence number; an
// event that needed no change and already had it goes out as it came.
func (g *merger) respOut(name string, doc map[string]any, raw []byte, same bool) []byte {
	seq := g.seq
	g.seq++
	if same && num(doc["sequence_number"]) == seq {
		return raw
	}
	doc["sequence_number"] = seq
	if name == "" {
		name, _ = doc["type"].(string)
	}
	return wire.Format(name, wire.Raw(doc))
}

func (g *merger) msgEvent(ev wire.Event, in wire.Info, shown string, rewrite bool) []byte {
	if in.Type == "message_start" && g.turn > 1 {
		return nil
	}
	if in.Type != "content_block_start" && in.Type != "content_block_delta" && in.Type != "content_block_stop" {
		return ev.Raw
	}
	doc, err := decode(ev.Data)
	if err != nil {
		return ev.Raw
	}
	i := num(doc["index"])
	if in.Type == "content_block_start" {
		block, _ := doc["content_block"].(map[string]any)
		isText := block != nil && block["type"] == "text"
		g.textBlock[i] = isText
		switch {
		case g.turn == 1:
			g.blockMap[i] = i
			g.nextBlock = max(g.nextBlock, i+1)
			if isText {
				g.textIdx = i
			}
		case isText && g.textIdx >= 0:
			g.blockMap[i] = g.textIdx
			return nil
		default:
			g.blockMap[i] = g.nextBlock
			g.nextBlock++
			if isText {
				g.textIdx = g.blockMap[i]
			}
		}
	}
	if to, ok := g.blockMap[i]; ok {
		doc["index"] = to
	}
	if rewrite {
		if d, ok := doc["delta"].(map[string]any); ok {
			d["text"] = shown
		}
	}
	if g.turn == 1 && !rewrite {
		return ev.Raw
	}
	return wire.Format(ev.Name, wire.Raw(doc))
}

// delta is a text event continuing the client's message with text.
func (g *merger) delta(text string) []byte {
	switch g.api {
	case wire.Chat:
		return wire.Format("", wire.Raw(map[string]any{
			"id": g.chatID, "object": "chat.completion.chunk",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text}, "finish_reason": nil}},
		}))
	case wire.Responses:
		return g.respOut("response.output_text.delta", map[string]any{
			"type": "response.output_text.delta", "item_id": g.itemID, "output_index": g.outIdx,
			"content_index": 0, "delta": text, "logprobs": []any{},
		}, nil, false)
	}
	return wire.Format("content_block_delta", wire.Raw(map[string]any{
		"type": "content_block_delta", "index": max(g.textIdx, 0), "delta": map[string]any{"type": "text_delta", "text": text},
	}))
}

// finish is the last turn's held events, carrying the whole text and the
// usage summed over the turns.
func (g *merger) finish(held []wire.Event, text string, usage json.RawMessage) []byte {
	var out []byte
	for _, ev := range held {
		doc, err := decode(ev.Data)
		if err != nil { // [DONE]
			out = append(out, ev.Raw...)
			continue
		}
		var u any
		if len(usage) > 0 {
			u = json.RawMessage(usage)
		}
		switch g.api {
		case wire.Chat:
			if g.turn > 1 {
				doc["id"] = g.chatID
			}
			if _, ok := doc["usage"].(map[string]any); ok && u != nil {
				doc["usage"] = u
			}
			out = append(out, wire.Format("", wire.Raw(doc))...)
		case wire.Responses:
			g.respDone(doc, text, u)
			out = append(out, g.respOut(ev.Name, doc, nil, false)...)
		case wire.Messages:
			if i, ok := doc["index"]; ok {
				if to, ok := g.blockMap[num(i)]; ok {
					doc["index"] = to
				}
			}
			if _, ok := doc["usage"].(map[string]any); ok && u != nil && doc["type"] == "message_delta" {
				doc["usage"] = u
			}
			out = append(out, wire.Format(ev.Name, wire.Raw(doc))...)
		}
	}
	return out
}

// respDone rewrites one closing Responses event for the merged message.
func (g *merger) respDone(doc map[string]any, text string, usage any) {
	if i, ok := doc["output_index"]; ok {
		if to, ok := g.outMap[num(i)]; ok {
			doc["output_index"] = to
		}
	}
	mine := num(doc["output_index"]) == g.outIdx
	switch doc["type"] {
	case "response.output_text.done":
		if mine {
			doc["item_id"], doc["text"] = g.itemID, text
		}
	case "response.content_part.done":
		if mine {
			doc["item_id"] = g.itemID
			if p, ok := doc["part"].(map[string]any); ok && p["type"] == "output_text" {
				p["text"] = text
			}
		}
	case "response.output_item.done":
		if item, ok := doc["item"].(map[string]any); ok && item["type"] == "message" {
			setMessageItem(item, g.itemID, text)
		}
	case "response.completed", "response.incomplete":
		if r, ok := doc["response"].(map[string]any); ok {
			setResponseText(r, g.itemID, text)
			if usage != nil {
				r["usage"] = usage
			}
		}
	}
}

// setResponseText puts text in a Responses response object's first
// message item (adding one when there is none), with id itemID when not
// empty.
func setResponseText(r map[string]any, itemID, text string) {
	out := list(r["output"])
	for _, it := range out {
		if item, ok := it.(map[string]any); ok && item["type"] == "message" {
			setMessageItem(item, itemID, text)
			return
		}
	}
	item := map[string]any{"type": "message", "id": itemID, "status": "completed", "role": "assistant"}
	if itemID == "" {
		item["id"] = "msg_dialect"
	}
	setMessageItem(item, "", text)
	r["output"] = append([]any{item}, out...)
}

func setMessageItem(item map[string]any, id, text string) {
	if id != "" {
		item["id"] = id
	}
	var parts []any
	set := false
	for _, p := range list(item["content"]) {
		pm, ok := p.(map[string]any)
		if ok && pm["type"] == "output_text" {
			if set {
				continue
			}
			pm["text"], set = text, true
		}
		parts = append(parts, p)
	}
	if !set {
		parts = append([]any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}, parts...)
	}
	item["content"] = parts
}

// errorEvent is an upstream error met on a later turn, in the API's
// stream: its body as the data of the API's error event (Chat
// Completions: a data-only event {"error": ...}; Messages: event "error";
// Responses: an "error" event built from the body's error).
func (g *merger) errorEvent(status int, body []byte) []byte {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || !json.Valid(body) {
		body = wire.Raw(map[string]any{"error": map[string]any{"message": "upstream answered " + strconv.Itoa(status) + ": " + string(body), "type": "upstream_error"}})
	}
	var buf bytes.Buffer
	json.Compact(&buf, body)
	body = buf.Bytes()
	switch g.api {
	case wire.Chat:
		return wire.Format("", body)
	case wire.Messages:
		return wire.Format("error", body)
	}
	doc, _ := decode(body)
	e, _ := doc["error"].(map[string]any)
	if e == nil {
		e = map[string]any{"message": string(body)}
	}
	return g.respOut("error", map[string]any{"type": "error", "code": e["code"], "message": e["message"], "param": e["param"]}, nil, false)
}

// setWhole rewrites a whole response body of api to carry text and usage.
func setWhole(api wire.API, body []byte, text string, usage json.RawMessage, setUsage bool) ([]byte, error) {
	doc, err := decode(body)
	if err != nil {
		return nil, err
	}
	if setUsage && len(usage) > 0 {
		doc["usage"] = usage
	}
	switch api {
	case wire.Chat:
		for _, ch := range list(doc["choices"]) {
			c, _ := ch.(map[string]any)
			if c == nil || num(c["index"]) != 0 {
				continue
			}
			if m, ok := c["message"].(map[string]any); ok {
				m["content"] = text
			}
		}
	case wire.Responses:
		setResponseText(doc, "", text)
	case wire.Messages:
		var parts []any
		set := false
		for _, p := range list(doc["content"]) {
			pm, ok := p.(map[string]any)
			if ok && pm["type"] == "text" {
				if set {
					continue
				}
				pm["text"], set = text, true
			}
			parts = append(parts, p)
		}
		if !set {
			parts = append([]any{map[string]any{"type": "text", "text": text}}, parts...)
		}
		doc["content"] = parts
	}
	return wire.Raw(doc), nil
}

// decode reads a JSON object keeping numbers as they were written.
func decode(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errNotObject
	}
	return m, nil
}

var errNotObject = &ResponseError{Msg: "not a JSON object"}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// num reads a JSON number (json.Number, or an int64 set here).
func num(v any) int64 {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return i
	case int64:
		return n
	case int:
		return int64(n)
	}
	return -1
}

func jsonInt(data []byte, key string) int64 {
	doc, err := decode(data)
	if err != nil {
		return -1
	}
	return num(doc[key])
}

func jsonString(data []byte, key string) string {
	doc, err := decode(data)
	if err != nil {
		return ""
	}
	s, _ := doc[key].(string)
	return s
}
