package detect

import "testing"

// Emphasis markers, invisible format characters, Unicode spaces and
// apostrophe look-alikes neither hide a reconsideration phrase nor make
// one.
func TestPhraseLookalikes(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"underscores", "/do /send @user x\n_actually_ no\n", []string{`send args="@user x" do (reconsidered: "actually")`}},
		{"bold", "/do /send @user x\n**Wait**.\n", []string{`send args="@user x" do (reconsidered: "wait")`}},
		{"emphasis inside a phrase", "/do /send @user x\nnever *mind*\n", []string{`send args="@user x" do (reconsidered: "never mind")`}},
		{"no-break space", "/do /send @user x\nnever\u00a0mind\n", []string{`send args="@user x" do (reconsidered: "never mind")`}},
		{"narrow no-break space", "/do /send @user x\nscratch\u202fthat\n", []string{`send args="@user x" do (reconsidered: "scratch that")`}},
		{"soft hyphen", "/do /send @user x\nact\u00adually no\n", []string{`send args="@user x" do (reconsidered: "actually")`}},
		{"zero-width joiner", "/do /send @user x\nno\u200dpe\n", []string{`send args="@user x" do (reconsidered: "nope")`}},
		{"acute accent apostrophe", "/do /send @user x\ndon´t need it\n", []string{`send args="@user x" do (reconsidered: "don't need")`}},
		{"prime apostrophe", "/do /send @user x\ndon′t need it\n", []string{`send args="@user x" do (reconsidered: "don't need")`}},
		{"fullwidth apostrophe", "/do /send @user x\nwon＇t need it\n", []string{`send args="@user x" do (reconsidered: "won't need")`}},
		{"fullwidth letters", "/do /send @user x\nＮＯＰＥ\n", []string{`send args="@user x" do (reconsidered: "nope")`}},
		// Must not make a phrase.
		{"emphasis inside a word", "/do /send @user x\nthe *wait*ress came\n", []string{`send args="@user x" do EXEC`}},
		{"zero-width space inside a word", "/do /send @user x\nawait\u200bing\n", []string{`send args="@user x" do EXEC`}},
		{"soft hyphen inside a word", "/do /send @user x\nwait\u00adress\n", []string{`send args="@user x" do EXEC`}},
		{"snake case", "/do /send @user x\nset wait_time and no_retry\n", []string{`send args="@user x" do EXEC`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, c.msg, c.want) })
	}
}
