package dialect

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDocsLinks: every relative link in README.md and docs/*.md reaches a
// file of the repository (and a heading of it, with #anchor), and every
// *.md file a page names exists: no page refers to a file the repository
// does not have.
func TestDocsLinks(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	pages = append(pages, "README.md", filepath.Join("examples", "README.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mention := regexp.MustCompile(`(?:^|[^\w/.$-])((?:\.\./|[\w.-]+/)*[\w.-]+\.md)\b`)
	fence := regexp.MustCompile("(?s)```.*?```")
	span := regexp.MustCompile("`[^`\n]*`")
	links := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		dir := filepath.Dir(page)
		prose := span.ReplaceAllString(fence.ReplaceAllString(text, ""), "")
		for _, m := range link.FindAllStringSubmatch(prose, -1) {
			target := m[1]
			if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(dir, path)
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: a link to %s, which does not exist", page, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !hasHeading(t, file, anchor) {
				t.Errorf("%s: a link to %s, a heading %s does not have", page, target, file)
			}
		}
		for _, m := range mention.FindAllStringSubmatch(text, -1) {
			name := m[1]
			found := false
			for _, c := range []string{filepath.Join(dir, name), name, filepath.Join("docs", name)} {
				if _, err := os.Stat(c); err == nil {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: names %s, which the repository does not have", page, name)
			}
		}
	}
	if links < 20 {
		t.Errorf("only %d links checked", links)
	}
}

// hasHeading reports whether the markdown file has a heading whose
// GitHub anchor is anchor.
func hasHeading(t *testing.T, file, anchor string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	inFence := false
	seen := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		h = strings.ReplaceAll(h, "`", "")
		h = regexp.MustCompile(`[^\p{L}\p{N}\- _]`).ReplaceAllString(h, "")
		slug := strings.ReplaceAll(h, " ", "-")
		n := seen[slug]
		seen[slug]++
		if n > 0 {
			slug += "-" + strconv.Itoa(n)
		}
		if slug == anchor {
			return true
		}
	}
	return false
}
