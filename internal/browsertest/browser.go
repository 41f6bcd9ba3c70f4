// Package browsertest opens HTML pages in a real browser for tests,
// Debian's headless Chromium (package chromium, /usr/bin/chromium): the
// DOM after the page's scripts ran, the messages of its console (script
// errors, refused fetches) and a screenshot; and reads the tables and
// the addresses of an HTML document.
package browsertest

import (
	"bytes"
	"context"
	"html"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Chromium returns the path of Chromium's binary, skipping t with the
// reason when there is none.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on $PATH: the browser test needs Debian's headless Chromium (apt-get install chromium; .ci/run installs it)")
	return ""
}

// Page is a page as the browser showed it.
type Page struct {
	// DOM is the document once its scripts ran, serialised.
	DOM string
	// Console holds the console's messages: a script's uncaught error,
	// console.log and console.error, a fetch the page's policy refused.
	Console []string
}

// consoleLine matches a console message in Chromium's log on stderr:
// [pid:tid:time:INFO:CONSOLE(line)] "message", source: URL (line).
var consoleLine = regexp.MustCompile(`:CONSOLE[:(][^\]]*\] (.*)`)

// Open shows the HTML file path in headless Chromium with a window of
// width×height pixels, saving a screenshot of the window as the PNG
// shot, and returns what the browser showed. It fails t when Chromium
// cannot show the page, and skips it when there is no Chromium.
func Open(t testing.TB, path string, width, height int, shot string) Page {
	t.Helper()
	bin := Chromium(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--disable-extensions", "--user-data-dir="+t.TempDir(),
		"--enable-logging=stderr", "--v=0",
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--screenshot="+shot,
		"--dump-dom", "file://"+filepath.ToSlash(abs))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", path, err, stderr.String())
	}
	p := Page{DOM: stdout.String()}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if m := consoleLine.FindStringSubmatch(line); m != nil {
			p.Console = append(p.Console, m[1])
		}
	}
	if !strings.Contains(p.DOM, "</html>") {
		t.Fatalf("chromium %s: no document on stdout:\n%s\n%s", path, p.DOM, stderr.String())
	}
	return p
}

// Table is a table of a document: its data-key attribute, and the text
// of its cells, row by row: those of its thead, tbody and tfoot.
type Table struct {
	Key                string
	Header, Rows, Foot [][]string
}

var (
	tableRE = regexp.MustCompile(`(?s)<table\b([^>]*)>(.*?)</table>`)
	keyRE   = regexp.MustCompile(`\bdata-key="([^"]*)"`)
	partRE  = regexp.MustCompile(`(?s)<(thead|tbody|tfoot)\b[^>]*>(.*?)</(?:thead|tbody|tfoot)>`)
	rowRE   = regexp.MustCompile(`(?s)<tr\b[^>]*>(.*?)</tr>`)
	cellRE  = regexp.MustCompile(`(?s)<t[hd]\b[^>]*>(.*?)</t[hd]>`)
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// Tables returns the tables of doc, an HTML document whose tables do
// not nest and group their rows in thead, tbody and tfoot (rows outside
// them are left out), in order. A cell's text is its content without
// tags, entities decoded, spaces trimmed.
func Tables(doc string) []Table {
	var out []Table
	for _, m := range tableRE.FindAllStringSubmatch(doc, -1) {
		t := Table{}
		if k := keyRE.FindStringSubmatch(m[1]); k != nil {
			t.Key = html.UnescapeString(k[1])
		}
		for _, part := range partRE.FindAllStringSubmatch(m[2], -1) {
			var rows [][]string
			for _, r := range rowRE.FindAllStringSubmatch(part[2], -1) {
				var cells []string
				for _, c := range cellRE.FindAllStringSubmatch(r[1], -1) {
					cells = append(cells, strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(c[1], ""))))
				}
				rows = append(rows, cells)
			}
			switch part[1] {
			case "thead":
				t.Header = append(t.Header, rows...)
			case "tbody":
				t.Rows = append(t.Rows, rows...)
			default:
				t.Foot = append(t.Foot, rows...)
			}
		}
		out = append(out, t)
	}
	return out
}

// addressRE matches the values of the attributes that make a browser
// fetch or follow an address, and CSS url()s.
var addressRE = regexp.MustCompile(`(?i)\b(?:src|href|action|srcset|poster|data|formaction)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))|url\(\s*['"]?([^'")]*)`)

// Addresses returns the addresses doc would fetch or link to other than
// data: URIs and fragments (#id) of itself, as written.
func Addresses(doc string) []string {
	var out []string
	for _, m := range addressRE.FindAllStringSubmatch(doc, -1) {
		v := strings.TrimSpace(m[1] + m[2] + m[3] + m[4])
		if !strings.HasPrefix(strings.ToLower(v), "data:") && !strings.HasPrefix(v, "#") {
			out = append(out, v)
		}
	}
	return out
}
