package verbs_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/pattern-dialect/dialect/intent"
	"github.com/pattern-dialect/dialect/verbs"
)

func ExampleRegistry_Parse() {
	r, err := verbs.NewRegistryWith(nil, verbs.Options{})
	if err != nil {
		panic(err)
	}
	in, err := r.Parse(context.Background(), "search", verbs.Input{Args: "what is due? in conversations > 2 weeks #work"})
	if err != nil {
		panic(err)
	}
	b, _ := intent.Marshal(in)
	fmt.Println(string(b))

	_, err = r.Parse(context.Background(), "search", verbs.Input{Args: "in archivs"})
	var pe *verbs.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Code, pe.Message)
	}
	// Output:
	// {"kind":"search","terms":"what is due?","domains":["conversations"],"time":{"older_than":"14d"},"filters":{"tags":["work"]}}
	// UNKNOWN_MODIFIER /search in archivs — did you mean 'in archival'?
}

func ExampleRegistry_ParseAction() {
	r, err := verbs.NewRegistryWith([]verbs.Extension{{
		Name: "notify", Aliases: []string{"heads up"}, MapsTo: "send",
		DefaultTarget: &verbs.Target{Type: "agent", ID: "anchor"},
	}}, verbs.Options{})
	if err != nil {
		panic(err)
	}
	verb, in, err := r.ParseAction(context.Background(), []string{"notify"}, verbs.Input{Token: "heads up", Args: "partner seems stressed"})
	if err != nil {
		panic(err)
	}
	inner := in.(intent.Custom).Inner.(intent.Send)
	fmt.Println(verb, inner.Domain, inner.Target, inner.Content)

	// "remember" is claimed by recall and context: the arguments' shape
	// settles it.
	verb, in, err = r.ParseAction(context.Background(), r.Claimants("remember"), verbs.Input{Token: "remember", Args: `human "likes tea" -> "likes coffee"`})
	if err != nil {
		panic(err)
	}
	fmt.Println(verb, in.Kind())
	// Output:
	// notify agent anchor partner seems stressed
	// context context
}
