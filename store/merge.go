package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Merge joins the descriptor folders of shards 0..N−1 of one run, given
// in any order, into the folder dir (created if needed): the result is
// byte for byte the folder of the same run unsharded (same descriptors
// and vectors in the same order, manifest indices renumbered, the same
// meta.json, failures concatenated). It streams the shards' files, so its
// memory does not depend on their size, and writes dir as a Folder,
// whose lock it takes before it reads a shard: completely or not at all.
// It returns the merged metadata.
//
// It returns an error wrapping ErrInvalid when a folder is not a complete
// descriptor folder (ErrTorn when its files are not the set its meta.json
// records), when the shards are not all of the same count N, a shard is
// missing or given twice, their meta.json differ in anything but the
// shard and counts (another version, options or inputs), a shard's files
// disagree with its counts, a descriptor is not what describe writes
// (finite, exactly symmetric and positive definite), or dir is one of
// the shard folders, and an error when every image of the run failed (as
// describe.Describe does). Its errors start with "merge: ". It returns the errors of CreateFolder, and the
// context's error, writing nothing, when ctx is done.
func Merge(ctx context.Context, dir string, shardDirs []string) (*Meta, error) {
	if len(shardDirs) == 0 {
		return nil, mergeError{fmt.Errorf("%w: no shard folders", ErrInvalid)}
	}
	for _, sd := range shardDirs {
		if sameDir(dir, sd) {
			return nil, mergeError{fmt.Errorf("%w: the output folder %s is the shard folder %s; merge into a new folder", ErrInvalid, dir, sd)}
		}
	}
	f, err := CreateFolder(ctx, dir, Format)
	if err != nil {
		return nil, mergeError{err}
	}
	defer f.Abort()
	metas := make([]*Meta, len(shardDirs))
	recs := make([]records, len(shardDirs))
	for i, sd := range shardDirs {
		if st, err := os.Stat(sd); err != nil || !st.IsDir() {
			if err == nil {
				err = errors.New("not a folder")
			}
			return nil, mergeError{fmt.Errorf("%w: shard folder %s: %w", ErrInvalid, sd, err)}
		}
		v, err := openView(sd)
		if err != nil {
			return nil, mergeError{err}
		}
		m, rec, err := metaOf(v)
		if err != nil {
			return nil, mergeError{err}
		}
		if m.Shard == nil {
			m.Shard = &Shard{Index: 0, Count: 1}
		}
		metas[i], recs[i] = m, rec
	}
	byIndex, err := checkShards(shardDirs, metas)
	if err != nil {
		return nil, err
	}

	merged := *metas[byIndex[0]]
	merged.Shard = nil
	merged.Counts = Counts{}
	merged.Files = nil
	out, err := NewWriter(f, &merged)
	if err != nil {
		return nil, err
	}
	for _, i := range byIndex {
		if err := mergeShard(ctx, out, recs[i], metas[i]); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			for _, name := range metas[i].fileNames() {
				err = recs[i].tornOr(name, err)
			}
			return nil, mergeError{err}
		}
		c := metas[i].Counts
		merged.Counts.Images += c.Images
		merged.Counts.Described += c.Described
		merged.Counts.Failed += c.Failed
		merged.Counts.Descriptors += c.Descriptors
		merged.Counts.Grey += c.Grey
	}
	if c := merged.Counts; c.Images > 0 && c.Described == 0 {
		return nil, mergeError{fmt.Errorf("all %d images of the shards failed (see their %s), so no output was written", c.Images, FailuresFile)}
	}
	if err := out.Commit(&merged); err != nil {
		return nil, err
	}
	return &merged, nil
}

// mergeError is an error of Merge: "merge: " and the message of err,
// without the "store: invalid input: " of ErrInvalid, which err may
// wrap, so that the command's error starts with what failed.
type mergeError struct{ err error }

func (e mergeError) Error() string {
	return "merge: " + strings.TrimPrefix(e.err.Error(), ErrInvalid.Error()+": ")
}

func (e mergeError) Unwrap() error { return e.err }

// checkShards checks that metas, read from dirs, are the shards 0..N−1 of
// one run, each once, and returns the positions in dirs of shards 0..N−1.
func checkShards(dirs []string, metas []*Meta) ([]int, error) {
	count := metas[0].Shard.Count
	// The count comes from disk, but ReadMeta has bounded it by MaxShards.
	byIndex := make([]int, count)
	for i := range byIndex {
		byIndex[i] = -1
	}
	for i, m := range metas {
		// Another run first: its shard numbers say nothing.
		if d := metas[0].Diff(m); d != "" {
			return nil, mergeError{fmt.Errorf("%w: %s and %s are not shards of the same run: %s", ErrInvalid, dirs[0], dirs[i], d)}
		}
		if m.Shard.Count != count {
			return nil, mergeError{fmt.Errorf("%w: %s is shard %v but %s is shard %v: not shards of one split",
				ErrInvalid, dirs[0], metas[0].Shard, dirs[i], m.Shard)}
		}
		if prev := byIndex[m.Shard.Index]; prev >= 0 {
			if count == 1 {
				return nil, mergeError{fmt.Errorf("%w: %s and %s both hold the whole run (written without --shard): give the shards of one run, each once", ErrInvalid, dirs[prev], dirs[i])}
			}
			return nil, mergeError{fmt.Errorf("%w: shard %v given twice: %s and %s", ErrInvalid, m.Shard, dirs[prev], dirs[i])}
		}
		byIndex[m.Shard.Index] = i
		lo, hi := m.Shard.Range(m.TotalImages())
		if m.Counts.Images != hi-lo {
			return nil, mergeError{fmt.Errorf("%w: %s: shard %v of %d images has %d images, want %d",
				ErrInvalid, dirs[i], m.Shard, m.TotalImages(), m.Counts.Images, hi-lo)}
		}
	}
	var missing []string
	more := 0
	for k, i := range byIndex {
		if i >= 0 {
			continue
		}
		if len(missing) < 10 {
			missing = append(missing, Shard{Index: k, Count: count}.String())
		} else {
			more++
		}
	}
	if more > 0 {
		missing = append(missing, fmt.Sprintf("and %d more", more))
	}
	if len(missing) > 0 {
		return nil, mergeError{fmt.Errorf("%w: missing shard %s (got %d of %d shards)", ErrInvalid, strings.Join(missing, ", "), len(dirs), count)}
	}
	return byIndex, nil
}

// mergeShard appends the descriptors, vectors, manifest rows and failures
// of the shard in dir, whose meta is m, to out, checking them against m.
func mergeShard(ctx context.Context, out *Writer, rec records, m *Meta) error {
	dir := rec.dir
	n := m.Counts.Descriptors
	err := copyNPY(ctx, rec, DescriptorsFile, matrixShape, func(shape []int) (*NPYWriter, error) {
		if want := []int{n, m.Dim, m.Dim}; !slices.Equal(shape, want) {
			return nil, fmt.Errorf("shape %s, want %s from %s", npyShapeString(shape), npyShapeString(want), MetaFile)
		}
		return out.npy, nil
	})
	if err != nil {
		return err
	}
	if m.Vectors != nil {
		err := copyNPY(ctx, rec, VectorsFile, rowShape, func(shape []int) (*NPYWriter, error) {
			switch {
			case shape[0] != n:
				return nil, fmt.Errorf("%d vectors, %s counts %d descriptors", shape[0], MetaFile, n)
			case n == 0:
				return nil, nil
			case out.vec == nil: // the first shard with vectors sets their length
				var err error
				out.vec, err = NewNPYWriter(out.vecFile, shape[1])
				return out.vec, err
			case shape[1] != out.vec.item:
				return nil, fmt.Errorf("vectors of %d values, an earlier shard's %d", shape[1], out.vec.item)
			}
			return out.vec, nil
		})
		if err != nil {
			return err
		}
	}

	rows := 0
	err = readManifest(rec, func(index int, path, label, region string) error {
		if index != rows {
			return fmt.Errorf("index %d, want %d", index, rows)
		}
		// What every reader refuses (Read) is not committed either.
		if _, err := parseRow(index, path, label, region, len(m.Inputs)); err != nil {
			return err
		}
		rows++
		return row(out, path, label, region)
	})
	if err != nil {
		return err
	}
	if rows != n {
		return fmt.Errorf("%w: %s has %d rows, %s counts %d descriptors", ErrInvalid, filepath.Join(dir, ManifestFile), rows, MetaFile, n)
	}

	if !m.SkipBad {
		return nil
	}
	failed := 0
	err = readCSV(rec, FailuresFile, failuresHeader, func(fields []string) error {
		failed++
		return failure(out, fields[0], fields[1])
	})
	if err != nil {
		return err
	}
	if failed != m.Counts.Failed {
		return fmt.Errorf("%w: %s has %d rows, %s counts %d failed images", ErrInvalid, filepath.Join(dir, FailuresFile), failed, MetaFile, m.Counts.Failed)
	}
	return nil
}

// copyNPY appends the entries of the array file name of the folder of r,
// of the shape kind shape, to the writer that dst returns for the array's
// shape (nil: the entries are only read), checking the whole file
// against its record and, for descriptors, each matrix (spdCheck). An
// error of dst is wrapped naming the file; it stops with the context's
// error when ctx is done.
func copyNPY(ctx context.Context, r records, name string, shape npyShape, dst func(shape []int) (*NPYWriter, error)) error {
	path := r.path(name)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	defer f.Close()
	info, err := readNPYHeader(f, shape)
	if err != nil {
		return err
	}
	w, err := dst(info.shape)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
	}
	// The whole file goes through d, to check it against its record.
	d := newDigest()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.CopyN(d, f, info.offset); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
	}
	var sink io.Writer = d
	if name == DescriptorsFile {
		sink = io.MultiWriter(d, newSPDCheck(path, info.shape[1]))
	}
	src := io.TeeReader(ctxReader{ctx, f}, sink)
	if w == nil {
		if _, err := io.Copy(io.Discard, src); err != nil {
			return err
		}
	} else if err := w.Copy(src, info.shape[0]); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return r.check(name, d)
}

// ctxReader reads from r until ctx is done, then fails with its error.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// sameDir reports whether a and b name the same existing folder.
func sameDir(a, b string) bool {
	sa, erra := os.Stat(a)
	sb, errb := os.Stat(b)
	if erra != nil || errb != nil {
		return errors.Is(erra, os.ErrNotExist) && errors.Is(errb, os.ErrNotExist) && filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(sa, sb)
}
