// Package intent holds the typed meaning of an action: what a resolved verb
// and its parsed arguments ask the runtime to do (docs/language.md §5).
//
// An Intent is a plain value. It encodes to JSON with a "kind" field (and an
// "op" field where the kind has several operations) so that results, the
// pending-approval queue and command tools can carry it, and Decode turns
// that JSON back into the same value. Each intent says whether it is
// read-only, which is what streaming early execution and the permission gate
// ask.
//
// References such as @last.output stay typed (Ref): the runtime resolves
// them, this package never does. Parsing text into intents belongs to verbs;
// executing them belongs to the executors.
package intent
