package browsertest

import (
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// faulty is a page whose script fails, which logs an error and whose
// image its policy refuses to fetch.
const faulty = `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; script-src 'unsafe-inline'">
</head><body><table data-key="t"><tbody><tr><td>1</td></tr></tbody></table>
<img src="https://example.invalid/x.png" alt="x">
<script>document.querySelector("td").textContent = "2"; console.error("logged"); noSuchFunction();</script>
</body></html>`

// TestOpenReportsConsole opens a faulty page once: the DOM is the one
// its script changed, the console holds the uncaught error, the logged
// one and the refused fetch, and the screenshot is a PNG of the window.
func TestOpenReportsConsole(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "faulty.html")
	if err := os.WriteFile(page, []byte(faulty), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	p := Open(t, page, 320, 200, shot)
	if ts := Tables(p.DOM); len(ts) != 1 || !slices.Equal(ts[0].Rows[0], []string{"2"}) {
		t.Errorf("tables after the script: %+v", ts)
	}
	console := strings.Join(p.Console, "\n")
	for _, want := range []string{"Uncaught ReferenceError: noSuchFunction is not defined", `"logged"`, "https://example.invalid/x.png"} {
		if !strings.Contains(console, want) {
			t.Errorf("console does not say %q:\n%s", want, console)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 320 || cfg.Height != 200 {
		t.Errorf("screenshot %dx%d, %v; want a 320x200 PNG", cfg.Width, cfg.Height, err)
	}
}

// TestTables reads the tables of a document as browsers serialise them
// and as html/template writes them: keys, parts, cells without tags,
// entities decoded; rows outside thead, tbody and tfoot left out.
func TestTables(t *testing.T) {
	doc := `<p>x</p><table class="sortable" data-key="a &amp; b"><caption>c</caption>
<thead><tr><th scope="col" tabindex="0" aria-sort="ascending">m</th><th>x &lt; y</th></tr></thead>
<tbody><tr><th scope="row">r1</th><td class="num"> 1.50 ± 0.2 </td></tr>
<tr><th>r2</th><td><b>2</b></td></tr></tbody><tfoot><tr><th>total</th><td>3.5</td></tr></tfoot></table>
<table><tr><td>bare</td></tr></table>`
	ts := Tables(doc)
	want := []Table{{Key: "a & b", Header: [][]string{{"m", "x < y"}}, Rows: [][]string{{"r1", "1.50 ± 0.2"}, {"r2", "2"}}, Foot: [][]string{{"total", "3.5"}}}, {}}
	if len(ts) != len(want) {
		t.Fatalf("%d tables, want %d: %+v", len(ts), len(want), ts)
	}
	for i := range want {
		if !equalTables(ts[i], want[i]) {
			t.Errorf("table %d: %+v, want %+v", i, ts[i], want[i])
		}
	}
}

func equalTables(a, b Table) bool {
	eq := func(x, y [][]string) bool { return slices.EqualFunc(x, y, slices.Equal) }
	return a.Key == b.Key && eq(a.Header, b.Header) && eq(a.Rows, b.Rows) && eq(a.Foot, b.Foot)
}

// TestAddresses finds every address a document fetches or links, in any
// quoting, and leaves out data: URIs and fragments.
func TestAddresses(t *testing.T) {
	doc := `<img src="data:image/png;base64,AAAA"><a href="#s1">s</a><img src='https://a.example/x.png'>
<link rel="stylesheet" href=//b.example/s.css><script src="c.js"></script><div style="background: url('http://d.example/i.png')"></div>
<table data-key="k"><p>src is a word, href too</p>`
	want := []string{"https://a.example/x.png", "//b.example/s.css", "c.js", "http://d.example/i.png"}
	if got := Addresses(doc); !slices.Equal(got, want) {
		t.Errorf("Addresses = %q, want %q", got, want)
	}
}
