package htmlreport

import (
	"bytes"
	"encoding/base64"
	"html"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/browsertest"
)

// tinyPNG is a 3×2 PNG.
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.NRGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sample is a page of one table to sort: numbers, a cell without one,
// text with numbers in it, and a total below.
func sample(t *testing.T) *Page {
	return &Page{Title: "a <title>", Intro: []string{"x & y"}, Footer: []string{"made"},
		Sections: []Section{{Heading: "one", Text: []string{"text"}, List: []string{"item"},
			Tables: []Table{{Key: "t", Caption: "cap", Header: []string{"name", "value", "note"}, Numeric: []bool{false, true},
				Rows: [][]string{{"b", "10 ± 1", "x2"}, {"a", "9.5", "x10"}, {"c", "–", "x1"}, {"d", "-3", "x3"}},
				Foot: [][]string{{"total", "16.5"}}}},
			Figures: []Figure{{Name: "f.png", PNG: tinyPNG(t)}}},
			{Heading: "two", Tables: []Table{{Key: "fixed", Header: []string{"k", "v"}, Rows: [][]string{{"<script>alert(1)</script>", "1"}}, Fixed: true}}}}}
}

// TestRender checks the page's markup: text escaped, the tables with
// their keys and parts, the fixed one not sortable, the figure a data:
// URI of its PNG at its size, nothing fetched from elsewhere, and the
// policy that forbids it.
func TestRender(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, sample(t)); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	for _, want := range []string{
		"<title>a &lt;title&gt;</title>", "<p>x &amp; y</p>", "<h2>one</h2>", "<li>item</li>", "<caption>cap</caption>",
		`<table class="sortable" data-key="t">`, `<table data-key="fixed">`, "&lt;script&gt;alert(1)&lt;/script&gt;",
		`<th scope="col" class="num">value</th>`, `<td class="num">10 ± 1</td>`, `<th scope="row">b</th>`, "<tfoot>",
		`src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(tinyPNG(t)) + `" alt="f.png" width="3" height="2"`,
		`content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"`,
		"<footer>\n<p>made</p>",
	} {
		// Attribute values are escaped, the data: URI's + as &#43;.
		if !strings.Contains(doc, want) && !strings.Contains(html.UnescapeString(doc), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if a := browsertest.Addresses(doc); len(a) > 0 {
		t.Errorf("page fetches or links %q", a)
	}
	ts := browsertest.Tables(doc)
	if len(ts) != 2 || ts[0].Key != "t" || len(ts[0].Rows) != 4 || !slices.Equal(ts[0].Foot[0], []string{"total", "16.5"}) || !slices.Equal(ts[1].Rows[0], []string{"<script>alert(1)</script>", "1"}) {
		t.Errorf("tables %+v", ts)
	}
}

// TestRenderErrors: a figure that is not a PNG, rows longer than the
// header.
func TestRenderErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(p *Page)
		want string
	}{
		{"not a PNG", func(p *Page) { p.Sections[0].Figures[0].PNG = []byte("GIF89a") }, "figure f.png: not a PNG"},
		{"long row", func(p *Page) { p.Sections[0].Tables[0].Rows[1] = []string{"a", "1", "2", "3"} }, `table "t": a row of 4 cells under 3 columns`},
		{"long total", func(p *Page) { p.Sections[0].Tables[0].Foot[0] = []string{"a", "1", "2", "3"} }, `table "t": a row of 4 cells under 3 columns`},
	} {
		p := sample(t)
		tc.edit(p)
		if err := Render(&bytes.Buffer{}, p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// clicks clicks the headers of table t as a reader would and records
// the order of its rows after each click in attributes of the table.
const clicks = `<script>
var table = document.querySelector('table[data-key="t"]'), th = table.tHead.rows[0].cells;
function order() { return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[0].textContent; }).join(","); }
[1, 1, 2, 2].forEach(function (col, i) { th[col].click(); table.setAttribute("data-after" + i, order() + ";" + th[col].getAttribute("aria-sort")); });
</script></body>`

// TestSortInBrowser sorts the sample's table in Chromium by clicks on
// its headers: the numeric column ascending then descending, the cell
// without a number last both ways; the text column by the numbers in
// it; the total left below; no console message.
func TestSortInBrowser(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, sample(t)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(strings.Replace(b.String(), "</body>", clicks, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := browsertest.Open(t, path, 800, 600, filepath.Join(t.TempDir(), "shot.png"))
	if len(p.Console) > 0 {
		t.Errorf("console:\n%s", strings.Join(p.Console, "\n"))
	}
	for i, want := range []string{"d,a,b,c;ascending", "b,a,d,c;descending", "c,b,d,a;ascending", "a,d,b,c;descending"} {
		m := regexp.MustCompile(`data-after` + string(rune('0'+i)) + `="([^"]*)"`).FindStringSubmatch(p.DOM)
		if m == nil || m[1] != want {
			t.Errorf("click %d: rows %v, want %s", i, m, want)
		}
	}
	if ts := browsertest.Tables(p.DOM); len(ts) == 0 || len(ts[0].Foot) != 1 || ts[0].Foot[0][0] != "total" {
		t.Errorf("total after sorting: %+v", ts)
	}
}
