package detect

// WindowUnit is what the early-execution confirmation window counts.
type WindowUnit int

const (
	// Words counts whitespace-separated words written after the action, a
	// stand-in for model tokens that needs no tokenizer.
	Words WindowUnit = iota
	// Bytes counts bytes written after the action.
	Bytes
)

// Options configures a Scanner. The zero value is not useful; start from
// DefaultOptions and change fields. dialect.toml maps onto these fields.
type Options struct {
	// Reconsideration lists the phrases that, found in the prose after an
	// action, stop it from executing (docs/language.md §2). Matched
	// case-insensitively on word boundaries; a straight apostrophe in a
	// phrase matches a straight, curly or missing one; a space matches any
	// run of spaces and tabs.
	Reconsideration []string

	// PermissionFlags are the words allowed after "?" in a permission
	// marker besides "ask" (default "public", "private"). Case-insensitive.
	PermissionFlags []string

	// MaxActionSize caps one action's arguments plus content, in bytes
	// (default 64 KiB). A larger action is reported with reason TooLarge
	// and its content is truncated to this size, which also bounds the
	// memory an unterminated block can take. It also bounds the text held
	// back while a backtick run may open a code span that closes on a later
	// line; past it the span is taken to be open.
	MaxActionSize int

	// EarlyExecution turns on streaming early execution: an action with
	// the /do marker whose ReadOnly predicate holds is handed to OnEarly
	// once EarlyWindow units have been written after it with no
	// reconsideration phrase. Off by default (post-completion decisions).
	EarlyExecution bool
	// EarlyWindow is the confirmation window's length (default 50).
	EarlyWindow int
	// EarlyWindowUnit is what EarlyWindow counts (default Words).
	EarlyWindowUnit WindowUnit
	// ReadOnly says whether an action's intent only reads (recall read or
	// search, search, calc). The scanner cannot know intents; with a nil
	// ReadOnly nothing executes early. The pointer is valid only during the
	// call.
	ReadOnly func(a *Action) bool
	// OnEarly receives an action cleared for early execution. Trailing,
	// Executable and Reason are not decided yet at that point.
	OnEarly func(a Action)
	// OnWithdraw receives an action earlier given to OnEarly that a later
	// reconsideration (at once) or cancel (when the message ends) withdrew;
	// the host should discard its result.
	OnWithdraw func(a Action)
}

// defaultReconsideration is the phrase list of docs/language.md §2.
var defaultReconsideration = []string{
	"actually", "wait", "never mind", "nevermind", "scratch that",
	"ignore that", "don't need", "won't need", "shouldn't", "hold on",
	"let me think", "on second thought", "no,", "nope", "nah",
	"forget that", "disregard", "not necessary", "don't bother",
}

// DefaultOptions returns the options of docs/language.md: its reconsideration
// phrases, flags "public" and "private", 64 KiB actions, and early
// execution off with a 50-word window.
func DefaultOptions() Options {
	return Options{
		Reconsideration: append([]string(nil), defaultReconsideration...),
		PermissionFlags: []string{"public", "private"},
		MaxActionSize:   64 << 10,
		EarlyWindow:     50,
		EarlyWindowUnit: Words,
	}
}
