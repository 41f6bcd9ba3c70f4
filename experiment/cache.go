package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/store"
)

// extract returns the dataset's descriptors with options o and, when o
// asks for them, its per-image vectors. With a cache folder, each
// extraction is a store folder (written as one output set under the
// folder's lock, so that runs sharing the cache wait for each other's
// entries rather than write them twice), the bytes `covpipe describe` writes with
// the same options, at CACHE/descriptors/KEY, KEY a hash of the meta.json
// the extraction writes (covpipe's version, features, ridge, resize,
// regions, seed, vector spec, inputs and the hash of their items) and of
// the items' sizes and modification times, so a second run reads it back.
// A cache folder that is torn (its files not the set its meta.json
// records), unreadable or holds non-finite values is a miss: it is logged
// as a warning naming the folder and recomputed. A cache entry that
// cannot be written (a read-only or full disk, a folder removed while it
// is written) is logged as a warning naming the folder, and the run goes
// on with the descriptors in memory. An image that fails without
// o.SkipBad is an error suggesting data.skip_bad. With a partReader pr,
// the descriptors go to pr one at a time, read from the cache without
// ever being held all at once, and the Output has no Data. With a
// vectorFile vf, vectors read from the cache are read again from the
// entry's file (vf.rows) and the Output has no Vectors; vectors just
// extracted are the Output's.
func (e *engine) extract(list *datasets.List, o describe.Options, pr *partReader, vf *vectorFile) (*store.Output, error) {
	out, err := e.extractOrCached(list, o, pr, vf)
	if ie := (*describe.ImageError)(nil); errors.As(err, &ie) && !o.SkipBad {
		return nil, fmt.Errorf("%w (data.skip_bad: true leaves out the images that fail)", err)
	}
	return out, err
}

// extractOrCached is extract but for its hint.
func (e *engine) extractOrCached(list *datasets.List, o describe.Options, pr *partReader, vf *vectorFile) (*store.Output, error) {
	t0 := time.Now()
	defer e.addTime("extraction", t0)
	lists := []*datasets.List{list}
	if e.opts.CacheDir == "" {
		out, err := describe.Collect(e.ctx, lists, o)
		return pr.take(out, err, false)
	}
	ex, err := describe.NewExtractor(o)
	if err != nil {
		return nil, err
	}
	want, err := ex.Meta(lists)
	if err != nil {
		return nil, err
	}
	key, err := cacheKey(list, &want)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(e.opts.CacheDir, "descriptors", key)
	what := "descriptor"
	if want.Vectors != nil {
		what = "vector"
	}
	if out, err := readCache(dir, &want, pr, vf); out != nil {
		e.log.Info(what+"s read from cache", "dir", dir, "count", len(out.Rows))
		return out, nil
	} else if errors.Is(err, store.ErrTorn) {
		e.log.Warn(what+" cache torn, recomputing it", "dir", dir, "err", err)
	} else if err != nil {
		e.log.Warn(what+" cache unusable, recomputing it", "dir", dir, "err", err)
	}
	// One writer per entry: a run that needs an entry another process is
	// writing waits for it, then reads it.
	f, err := store.WaitFolder(e.ctx, dir, store.Format, cachePoll, func(l *store.LockedError) {
		e.log.Info("waiting for the "+what+" cache", "dir", dir, "writer", l.Error())
	})
	if err != nil {
		if cerr := e.ctx.Err(); cerr != nil {
			return nil, cerr
		}
		e.log.Warn(what+" cache not writable, going on without it (no cache folder: covpipe run --no-cache)", "dir", dir, "err", err)
		out, err := describe.Collect(e.ctx, lists, o)
		return pr.take(out, err, false)
	}
	if out, _ := readCache(dir, &want, pr, vf); out != nil {
		f.Abort()
		e.log.Info(what+"s read from cache", "dir", dir, "count", len(out.Rows))
		return out, nil
	}
	// A cache that cannot be written (a full disk, a folder removed
	// meanwhile) costs the next run its reuse, not this run its
	// descriptors.
	out, err := ex.CollectInto(e.ctx, lists, f, func(err error) {
		e.log.Warn(what+" cache not written, going on without it (no cache folder: covpipe run --no-cache)", "dir", dir, "err", err)
	})
	if err != nil {
		return nil, err
	}
	if pr != nil {
		// As read from the cache, a descriptor that is not finite is
		// finite's error, not the Packer's.
		if out, err = pr.take(out, nil, true); err == nil {
			err = pr.nonFinite
		}
	}
	if err == nil {
		err = finite(out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %w", what+"s", list.Root, err)
	}
	return out, nil
}

// cachePoll is how often a run waiting for a cache entry that another
// process writes checks whether it is done.
const cachePoll = 100 * time.Millisecond

// readCache returns the store folder dir when it holds the extraction
// that want describes, whole and finite; nil and no error when dir holds
// no folder, and the reason when it holds an unusable one. With a
// partReader pr, the descriptors go to pr as they are read
// (store.OpenEach), which keeps the entry's file to read them again
// from, and the Output has no Data; with a vectorFile vf, the vectors go
// to vf (store.OpenVectors) and the Output has no Vectors.
func readCache(dir string, want *store.Meta, pr *partReader, vf *vectorFile) (*store.Output, error) {
	out, err := readCacheOf(dir, want, pr, vf)
	if out == nil && vf != nil && vf.rows != nil {
		vf.rows.Close()
		vf.rows = nil
	}
	return out, err
}

// readCacheOf is readCache but for closing vf's file when it returns no
// Output.
func readCacheOf(dir string, want *store.Meta, pr *partReader, vf *vectorFile) (*store.Output, error) {
	var out *store.Output
	var err error
	switch {
	case vf != nil && want.Vectors != nil:
		vf.nonFinite = nil
		out, vf.rows, err = store.OpenVectors(dir, vf.check)
	case pr == nil:
		out, err = store.Read(dir)
	default:
		pr.checkFinite, pr.src = true, &fileSource{}
		out, pr.src.d, err = store.OpenEach(dir, func(o *store.Output) error {
			if d := o.Meta.Diff(want); d != "" || o.Meta.Shard != nil {
				return fmt.Errorf("it holds another extraction: %s", d)
			}
			pr.start(o)
			return nil
		}, pr.add)
	}
	if errors.Is(err, store.ErrNoSet) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if d := out.Meta.Diff(want); d != "" || out.Meta.Shard != nil {
		return nil, fmt.Errorf("it holds another extraction: %s", d)
	}
	if pr != nil && pr.nonFinite != nil {
		pr.src.d.Close()
		return nil, pr.nonFinite
	}
	if vf != nil && vf.nonFinite != nil {
		return nil, vf.nonFinite
	}
	if err := finite(out); err != nil {
		return nil, err
	}
	return out, nil
}

// finite returns an error naming the first descriptor or vector of out
// with a value that is NaN or infinite.
func finite(out *store.Output) error {
	dd := out.Meta.Dim * out.Meta.Dim
	for i, v := range out.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("descriptor %d holds %v", i/dd, v)
		}
	}
	for i, v := range out.Vectors {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("vector %d holds %v", i/out.VectorLen, v)
		}
	}
	return nil
}

// cacheKey hashes what determines an extraction from list: the meta.json
// it writes (without counts and files), the absolute folder of the list
// and the relative path, label, size and modification time of each item.
func cacheKey(list *datasets.List, meta *store.Meta) (string, error) {
	type file struct {
		Rel, Label string
		Size       int64
		ModTime    int64
	}
	files := make([]file, 0, len(list.Items))
	for _, it := range list.Items {
		st, err := os.Stat(it.Path)
		if err != nil {
			return "", fmt.Errorf("descriptor cache: %w", err)
		}
		files = append(files, file{it.Rel, it.Label, st.Size(), st.ModTime().UnixNano()})
	}
	sort.Slice(files, func(a, b int) bool { return files[a].Rel < files[b].Rel })
	root, err := filepath.Abs(list.Root)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(struct {
		Meta  *store.Meta
		Root  string
		Files []file
	}{meta, root, files})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12]), nil
}
