package describe

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Merge joins the output folders of shards 0..N−1 of one run, given in any
// order, into the folder dir (created if needed): the result is byte for
// byte the output of the same run unsharded (same descriptors in the same
// order, manifest indices renumbered, the same meta.json, failures
// concatenated). It streams the shards' files, so its memory does not
// depend on their size, and writes dir as Describe does: completely or not
// at all. It returns the merged metadata.
//
// It returns an error wrapping ErrOutput when a folder is not a complete
// output (ErrTorn when its files are not the set its meta.json records), when the shards are not all of the same count N, a shard is
// missing or given twice, their meta.json differ in anything but the
// shard and counts (another version, options or inputs), a shard's files
// disagree with its counts, or dir is one of the shard folders, and an
// error when every image of the run failed (as Describe does).
func Merge(dir string, shardDirs []string) (*Meta, error) {
	if len(shardDirs) == 0 {
		return nil, fmt.Errorf("%w: merge: no shard folders", ErrOutput)
	}
	metas := make([]*Meta, len(shardDirs))
	for i, sd := range shardDirs {
		m, err := ReadMeta(sd)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if m.Shard == nil {
			m.Shard = &Shard{Index: 0, Count: 1}
		}
		metas[i] = m
	}
	byIndex, err := checkShards(shardDirs, metas)
	if err != nil {
		return nil, err
	}
	for _, sd := range shardDirs {
		if sameDir(dir, sd) {
			return nil, fmt.Errorf("%w: merge: the output folder %s is the shard folder %s; merge into a new folder", ErrOutput, dir, sd)
		}
	}

	first := metas[byIndex[0]]
	out, err := createOutputs(dir, first.Dim, first.SkipBad)
	if err != nil {
		return nil, err
	}
	defer out.abort()
	merged := *first
	merged.Shard = nil
	merged.Counts = Counts{}
	for _, i := range byIndex {
		if err := mergeShard(out, shardDirs[i], metas[i]); err != nil {
			for _, name := range metas[i].fileNames() {
				err = metas[i].tornOr(shardDirs[i], name, err)
			}
			return nil, fmt.Errorf("merge: %w", err)
		}
		c := metas[i].Counts
		merged.Counts.Images += c.Images
		merged.Counts.Described += c.Described
		merged.Counts.Failed += c.Failed
		merged.Counts.Descriptors += c.Descriptors
	}
	if c := merged.Counts; c.Images > 0 && c.Described == 0 {
		return nil, fmt.Errorf("merge: all %d images of the shards failed (see their %s), so no output was written", c.Images, FailuresFile)
	}
	if err := out.commit(&merged); err != nil {
		return nil, err
	}
	return &merged, nil
}

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
		if m.Shard.Count != count {
			return nil, fmt.Errorf("%w: merge: %s is shard %v but %s is shard %v: not shards of one split",
				ErrOutput, dirs[0], metas[0].Shard, dirs[i], m.Shard)
		}
		if prev := byIndex[m.Shard.Index]; prev >= 0 {
			return nil, fmt.Errorf("%w: merge: shard %v given twice: %s and %s", ErrOutput, m.Shard, dirs[prev], dirs[i])
		}
		byIndex[m.Shard.Index] = i
		if d := metas[0].diff(m); d != "" {
			return nil, fmt.Errorf("%w: merge: %s and %s are not shards of the same run: %s", ErrOutput, dirs[0], dirs[i], d)
		}
		lo, hi := m.Shard.Range(m.totalImages())
		if m.Counts.Images != hi-lo {
			return nil, fmt.Errorf("%w: merge: %s: shard %v of %d images has %d images, want %d",
				ErrOutput, dirs[i], m.Shard, m.totalImages(), m.Counts.Images, hi-lo)
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
		return nil, fmt.Errorf("%w: merge: missing shard %s (got %d of %d shards)", ErrOutput, strings.Join(missing, ", "), len(dirs), count)
	}
	return byIndex, nil
}

// mergeShard appends the descriptors, manifest rows and failures of the
// shard in dir, whose meta is m, to out, checking them against m.
func mergeShard(out *outputs, dir string, m *Meta) error {
	npyPath := filepath.Join(dir, DescriptorsFile)
	f, err := os.Open(npyPath)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrOutput, err)
	}
	defer f.Close()
	info, err := readNPYHeader(f)
	if err != nil {
		return err
	}
	if info.d != m.Dim || info.n != m.Counts.Descriptors {
		return fmt.Errorf("%w: %s: shape (%d, %d, %d), want (%d, %d, %d) from %s",
			ErrOutput, npyPath, info.n, info.d, info.d, m.Counts.Descriptors, m.Dim, m.Dim, MetaFile)
	}
	// The whole file goes through d, to check it against m.Files.
	d := newDigest()
	if _, err := f.Seek(0, 0); err != nil {
		return err
	}
	if _, err := io.CopyN(d, f, info.offset); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrOutput, npyPath, err)
	}
	if err := out.rawDescriptors(io.TeeReader(f, d), info.n); err != nil {
		return fmt.Errorf("%s: %w", npyPath, err)
	}
	if err := m.checkFile(dir, DescriptorsFile, d); err != nil {
		return err
	}

	manPath := filepath.Join(dir, ManifestFile)
	rows := 0
	err = readManifest(dir, m, func(index int, path, label, region string) error {
		if index != rows {
			return fmt.Errorf("index %d, want %d", index, rows)
		}
		rows++
		return row(out, path, label, region)
	})
	if err != nil {
		return err
	}
	if rows != m.Counts.Descriptors {
		return fmt.Errorf("%w: %s has %d rows, %s counts %d descriptors", ErrOutput, manPath, rows, MetaFile, m.Counts.Descriptors)
	}

	if !m.SkipBad {
		return nil
	}
	failPath := filepath.Join(dir, FailuresFile)
	failed := 0
	err = readCSV(dir, FailuresFile, failuresHeader, m, func(rec []string) error {
		failed++
		return failure(out, rec[0], rec[1])
	})
	if err != nil {
		return err
	}
	if failed != m.Counts.Failed {
		return fmt.Errorf("%w: %s has %d rows, %s counts %d failed images", ErrOutput, failPath, failed, MetaFile, m.Counts.Failed)
	}
	return nil
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
