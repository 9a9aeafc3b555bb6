package grammarbridge

import (
	"strings"
	"testing"
)

// spliceGrammar has rule parts that spliceSilent splices (silent, one
// alternative, same spacing; nested; made non-optional by
// dropRedundantSkips; after an open wildcard) and some it must not
// (optional, repeated, captured, another spacing mode, left recursive).
const spliceGrammar = `
<Start> = <Cmd> | <Say> | <Loop> | <Deep>;
<Polite> = (please | can you)?;
<Verb> = <Polite> (show | display (me)?);
<Cmd> = (<Polite>)? <Verb> $(what:wildcard) <Tail> -> { what }
      | <Verb> the $(n:number) <Things> -> n
      | <Verb> $(what:wildcard) <Tight> now -> { tight: what };
<Tail> = (in full | quickly)?;
<Things> = <Thing>;
<Thing> = (item | items);
<Tight> [spacing=none] = x y;
<Say> = say $(x:wildcard) <Marker> $(y:wildcard) -> [x, y]
      | say <Marker>* $(x:wildcard) -> x;
<Marker> = <Polite> then;
<Loop> = loop <Again> -> "loop" | cyc <Cyc> -> "cyc";
<Again> = go <More>;
<More> = (<Again>)?;
<Cyc> = x <CycB>;
<CycB> = y <Cyc>;
<Deep> = deep <D1> -> "deep";
<D1> = <D2> one;
<D2> = <D3> two;
<D3> = <D4> three;
<D4> = <D5> four;
<D5> = <D6> five;
<D6> = <D7> six;
<D7> = <D8> seven;
<D8> = <D9> eight;
<D9> = nine;
`

// TestEngineSplice compares the optimized matcher, which splices silent
// rules into their callers, with the plain search.
func TestEngineSplice(t *testing.T) {
	fast := mustCompile(t, spliceGrammar, Options{})
	slow := mustCompile(t, spliceGrammar, Options{naive: true, WorkLimit: 1 << 22})
	var inputs []string
	for _, pre := range []string{"", "please ", "can you ", "please can you "} {
		for _, verb := range []string{"show", "display", "display me"} {
			for _, rest := range []string{"the report", "the report in full", "the report quickly", "the 3 items", "the 1 item",
				"it xy now", "it x y now", "it xynow", "", "the 2 items in full"} {
				inputs = append(inputs, strings.TrimSpace(pre+verb+" "+rest))
			}
		}
	}
	inputs = append(inputs, "say hello then world", "say hello please then world", "say then then hi", "say please then then x",
		"say a then b then c", "loop go", "loop go go go", "cyc x y x y", "cyc x y x", "deep nine eight seven six five four three two one",
		"deep nine eight seven six five four three two", "say then hi")
	sameAsPlain(t, fast, slow, inputs)
	// The splices this grammar is made for took place.
	walkRules(fast.start, fast.nrules, func(r *crule) {
		for _, a := range r.alts {
			for i := range a.parts {
				if p := &a.parts[i]; p.kind == partRules {
					switch p.rule.name {
					case "Verb", "Things", "Marker", "D1", "D5": // not D9: maxSplice deep
						if !p.repeat {
							t.Errorf("<%s> is not spliced into <%s>", p.rule.name, r.name)
						}
					}
				}
			}
		}
	})
}
