package datasets

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CSV reads a manifest: a CSV file (RFC 4180, comma-separated) whose
// header row names its columns, among them "path" and "label" in any
// position:
//
//	path,label,pose
//	faces/00001ba.png,00001,ba
//	/data/extra/x.png,00002,
//
// The items keep the order of the rows, so that item i is row i + 1 of
// the manifest. A relative path is relative to the manifest's folder,
// which becomes the list's Root; an absolute path is taken as is. Paths
// are slash-separated.
// The other columns become Meta, keyed by their header names; an empty
// cell gives no Meta entry. Cells are taken verbatim (spaces are data).
//
// It returns an error naming the file and line for a malformed row
// (ErrFormat: wrong number of fields, an empty path, a blank label, a path
// listed twice, a cell holding a carriage return, which CSV readers turn
// into a newline inside quotes, so that it could not be written back as
// read), for a missing header column, and for a listed file that
// does not exist or is not a regular file; ErrEmpty when there are no
// rows.
func CSV(path string) (*List, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("csv: %w", err)
	}
	defer f.Close()
	return readCSV(f, path, filepath.Dir(filepath.Clean(path)))
}

// readCSV reads a manifest named name (for errors) whose relative paths
// are relative to dir.
func readCSV(r io.Reader, name, dir string) (*List, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: csv %s: no header row (want path,label,...)", ErrEmpty, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: csv %s: %v", ErrFormat, name, err)
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff") // a UTF-8 byte order mark
	pathCol, labelCol := -1, -1
	for i, h := range header {
		switch {
		case h == "":
			return nil, fmt.Errorf("%w: csv %s line 1: column %d has an empty name", ErrFormat, name, i+1)
		case slices.Index(header, h) != i:
			return nil, fmt.Errorf("%w: csv %s line 1: column %q appears twice", ErrFormat, name, h)
		case h == "path":
			pathCol = i
		case h == "label":
			labelCol = i
		}
	}
	if pathCol < 0 || labelCol < 0 {
		return nil, fmt.Errorf("%w: csv %s line 1: header %q lacks a \"path\" or \"label\" column", ErrFormat, name, strings.Join(header, ","))
	}

	l := &List{Root: dir}
	lines := make(map[string]int) // Rel → line
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: csv %s: %v", ErrFormat, name, err)
		}
		line, _ := cr.FieldPos(0)
		it, err := csvItem(rec, header, pathCol, labelCol, dir)
		if err != nil {
			return nil, fmt.Errorf("csv %s line %d: %w", name, line, err)
		}
		if prev, ok := lines[it.Rel]; ok {
			return nil, fmt.Errorf("%w: csv %s line %d: path %q already listed on line %d", ErrFormat, name, line, it.Rel, prev)
		}
		lines[it.Rel] = line
		l.Items = append(l.Items, it)
	}
	if len(l.Items) == 0 {
		return nil, fmt.Errorf("%w: csv %s: no rows after the header", ErrEmpty, name)
	}
	return l, nil
}

// csvItem makes the item of a manifest row and checks that its file
// exists.
func csvItem(rec, header []string, pathCol, labelCol int, dir string) (Item, error) {
	p, label := rec[pathCol], rec[labelCol]
	for i, v := range rec {
		if strings.ContainsRune(v, '\r') {
			return Item{}, fmt.Errorf("%w: column %q holds a carriage return", ErrFormat, header[i])
		}
	}
	if p == "" {
		return Item{}, fmt.Errorf("%w: empty path", ErrFormat)
	}
	if strings.TrimSpace(label) == "" {
		return Item{}, fmt.Errorf("%w: blank label for %s", ErrFormat, p)
	}
	it := Item{Label: label}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		it.Path = filepath.Clean(native)
		it.Rel = filepath.ToSlash(it.Path)
		if rel, err := filepath.Rel(dir, it.Path); err == nil && filepath.IsLocal(rel) {
			it.Rel = filepath.ToSlash(rel)
		}
	} else {
		it.Path = filepath.Join(dir, native)
		it.Rel = filepath.ToSlash(filepath.Clean(native))
	}
	st, err := os.Stat(it.Path)
	if err != nil {
		return Item{}, err
	}
	if !st.Mode().IsRegular() {
		return Item{}, fmt.Errorf("%s is not a regular file", it.Path)
	}
	for i, v := range rec {
		if i == pathCol || i == labelCol || v == "" {
			continue
		}
		if it.Meta == nil {
			it.Meta = make(map[string]string)
		}
		it.Meta[header[i]] = v
	}
	return it, nil
}

// WriteCSV writes l as a manifest that CSV reads back: the header
// path,label followed by the union of the items' Meta keys, sorted, then
// one row per item with its Rel, its label and its metadata (empty cells
// for missing keys). Relative paths are relative to l.Root, so the file
// belongs in that folder. It returns an error (ErrFormat) for an item with
// an empty Rel or a blank label, or a Meta key that is empty, "path" or
// "label", and the writer's error.
func WriteCSV(w io.Writer, l *List) error {
	keySet := make(map[string]bool)
	for _, it := range l.Items {
		if it.Rel == "" {
			return fmt.Errorf("%w: write csv: item %q has an empty Rel", ErrFormat, it.Path)
		}
		if strings.TrimSpace(it.Label) == "" {
			return fmt.Errorf("%w: write csv: item %s has a blank label", ErrFormat, it.Rel)
		}
		for k := range it.Meta {
			if k == "" || k == "path" || k == "label" {
				return fmt.Errorf("%w: write csv: item %s has the Meta key %q, which cannot be a column", ErrFormat, it.Rel, k)
			}
			keySet[k] = true
		}
	}
	keys := make([]string, 0, len(keySet))
	for k := range keySet {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	cw := csv.NewWriter(w)
	rec := append([]string{"path", "label"}, keys...)
	if err := cw.Write(rec); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	for _, it := range l.Items {
		rec[0], rec[1] = it.Rel, it.Label
		for i, k := range keys {
			rec[2+i] = it.Meta[k]
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}
