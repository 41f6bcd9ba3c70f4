package datasets

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCSV(t *testing.T) {
	dir := touch(t, t.TempDir(), "img/b.png", "img/a.png", "c d.jpg")
	other := touch(t, t.TempDir(), "far.png")
	farPath := filepath.Join(other, "far.png")
	insideAbs := filepath.Join(dir, "img", "a.png")
	csvPath := writeFile(t, filepath.Join(dir, "list.csv"),
		"\ufefflabel,camera,path,note\n"+
			"cat,1,img/b.png,\n"+
			"\n"+ // blank lines are skipped
			"dog,,./c d.jpg,\"quoted, with comma\"\n"+
			"cat,2,"+filepath.ToSlash(farPath)+",far\n"+
			"cat,3,"+filepath.ToSlash(insideAbs)+",\n")
	l, err := CSV(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if l.Root != dir {
		t.Errorf("Root %q, want %q", l.Root, dir)
	}
	// The rows' order, not the paths'.
	want := []Item{
		{Path: filepath.Join(dir, "img", "b.png"), Rel: "img/b.png", Label: "cat", Meta: map[string]string{"camera": "1"}},
		{Path: filepath.Join(dir, "c d.jpg"), Rel: "c d.jpg", Label: "dog", Meta: map[string]string{"note": "quoted, with comma"}},
		{Path: farPath, Rel: filepath.ToSlash(farPath), Label: "cat", Meta: map[string]string{"camera": "2", "note": "far"}},
		{Path: insideAbs, Rel: "img/a.png", Label: "cat", Meta: map[string]string{"camera": "3"}},
	}
	if !reflect.DeepEqual(l.Items, want) {
		t.Errorf("items\n%+v\nwant\n%+v", l.Items, want)
	}
}

func TestCSVErrors(t *testing.T) {
	dir := touch(t, t.TempDir(), "a.png", "b.png", "sub/c.png")
	for _, tc := range []struct {
		name, content string
		is            error  // nil: only check the message
		want          string // in the message
	}{
		{"no header", "", ErrEmpty, "no header"},
		{"no rows", "path,label\n", ErrEmpty, "no rows"},
		{"no label column", "path,class\na.png,x\n", ErrFormat, "line 1"},
		{"empty column name", "path,label,\na.png,x,1\n", ErrFormat, "column 3"},
		{"duplicate column", "path,label,path\na.png,x,b.png\n", ErrFormat, `"path" appears twice`},
		{"short row", "path,label\na.png,x\nb.png\n", ErrFormat, "line 3"},
		{"long row", "path,label\na.png,x\n\nb.png,y,z\n", ErrFormat, "line 4"},
		{"bare quote", "path,label\na.png,x\"y\n", ErrFormat, "line 2"},
		{"empty path", "path,label\na.png,x\n,y\n", ErrFormat, "line 3: datasets: malformed input: empty path"},
		{"blank label", "path,label\na.png,x\nb.png, \n", ErrFormat, "line 3"},
		{"missing file", "path,label\na.png,x\nsub/nope.png,y\n", fs.ErrNotExist, "line 3"},
		{"directory", "path,label\nsub,x\n", nil, "line 2"},
		{"duplicate path", "path,label\na.png,x\nsub/c.png,y\n./a.png,z\n", ErrFormat, "line 4: path \"a.png\" already listed on line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(dir, "m.csv"), tc.content)
			_, err := CSV(p)
			t.Log(err)
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %v, want %v naming %s and containing %q", err, tc.is, p, tc.want)
			}
		})
	}
	if _, err := CSV(filepath.Join(dir, "none.csv")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing manifest: error %v", err)
	}
}

func TestCSVMissingFileNamesPath(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "m.csv"), "path,label\nghost.png,x\n")
	_, err := CSV(p)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "ghost.png")) {
		t.Errorf("error %v does not name the missing file", err)
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	dir := touch(t, t.TempDir(),
		"0001/0001C1T0001F001.jpg", "0001/0001C2T0003F010.jpg", "0002/x, y.jpg", "0002/sub/\"q\".png")
	l, err := Folders(dir, MARSMeta)
	if err != nil {
		t.Fatal(err)
	}
	l.Items[2].Meta = map[string]string{"note": "multi\nline"}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, l); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(buf.String(), "\n")
	if header != "path,label,camera,frame,note,pid,tracklet" {
		t.Errorf("header %q", header)
	}
	back, err := CSV(writeFile(t, filepath.Join(dir, "manifest.csv"), buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if back.Root != l.Root || !reflect.DeepEqual(back.Items, l.Items) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", back, l)
	}
	// The manifest is not an image: listing the folder again is unchanged.
	again, err := Folders(dir, MARSMeta)
	if err != nil || again.Len() != l.Len() {
		t.Errorf("after writing the manifest: %v, %d items, want %d", err, again.Len(), l.Len())
	}
}

func TestWriteCSVErrors(t *testing.T) {
	for _, it := range []Item{
		{Rel: "", Label: "x"},
		{Rel: "a.png", Label: " "},
		{Rel: "a.png", Label: "x", Meta: map[string]string{"label": "y"}},
		{Rel: "a.png", Label: "x", Meta: map[string]string{"": "y"}},
	} {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, &List{Items: []Item{it}}); !errors.Is(err, ErrFormat) {
			t.Errorf("WriteCSV(%+v) error %v, want ErrFormat", it, err)
		}
	}
}

// FuzzCSV checks that arbitrary manifests give an error or a list that
// writes back to an equal list.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"path,label\na.png,x\n",
		"label,path,k\nx,b.png,1\ny,a.png,\n",
		"path,label\na.png,\"x\ny\"\n",
		"path,label\n\"a.png\nb\",x\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	for _, n := range []string{"a.png", "b.png"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, content string) {
		l, err := readCSV(strings.NewReader(content), "fuzz.csv", dir)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, l); err != nil {
			t.Fatalf("WriteCSV of a read list: %v", err)
		}
		back, err := readCSV(&buf, "back.csv", dir)
		if err != nil {
			t.Fatalf("reading back %q: %v", buf.String(), err)
		}
		if len(back.Items) != len(l.Items) {
			t.Fatalf("round trip: %d items, want %d", len(back.Items), len(l.Items))
		}
		for i, it := range l.Items {
			b := back.Items[i]
			if b.Path != it.Path || b.Rel != it.Rel || b.Label != it.Label || !maps.Equal(b.Meta, it.Meta) {
				t.Fatalf("round trip item %d: %+v, want %+v", i, b, it)
			}
		}
	})
}
