package morph_test

import (
	"fmt"

	"github.com/pattern-dialect/dialect/morph"
)

func ExampleNormalize() {
	for _, w := range []string{"searching", "queried", "stopped", "caching", "makes", "wrote", "cancelled", "yeeted"} {
		fmt.Println(w, "→", morph.Normalize(w))
	}
	// Output:
	// searching → search
	// queried → query
	// stopped → stop
	// caching → cache
	// makes → make
	// wrote → write
	// cancelled → cancel
	// yeeted → yeet
}

func ExampleVariants() {
	fmt.Println(morph.Variants("summarised"))
	fmt.Println(morph.Variants("colour"))
	// Output:
	// [summarized]
	// [color]
}

func ExampleLexicon_Forms() {
	fmt.Println(morph.Default().Forms("send"))
	fmt.Println(morph.Default().Forms("query"))
	// Output:
	// [sent sends sending]
	// [queried queries querying]
}
