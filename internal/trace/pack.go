package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcpsec/mcpsec/internal/trial"
)

// A sweep writes thousands of traces. One file each costs a file-system
// block per trial, and compressing each alone gives up what traces share
// (the same tool lists, prompts and notes, trial after trial). So a sweep
// packs the traces of many trials into one file: each worker appends to
// its own gzip stream, one trial after another, and flushes the stream
// (a sync flush, so everything written so far decompresses) and syncs the
// file when each trial ends. The compressor keeps its window across
// trials, which makes a packed trace about a third of a trace compressed
// alone. Every PackMemberText bytes of text the stream is closed and the
// next trial starts a new gzip member, so reading one trial decompresses
// at most one member, never the whole file. The result is a standard
// multi-member gzip file: zcat prints every trial in it.

// PackMemberText is the amount of trace text after which a pack closes
// its gzip member and starts another: the most a reader of one trial
// decompresses before it reaches that trial.
const PackMemberText = 1 << 20

// packLevel is the pack's compression level. The best level costs about
// half as much CPU again as the default and makes packs a twentieth
// smaller; a sweep spends far more on its trials than on compressing.
const packLevel = gzip.BestCompression

// packMemberText is PackMemberText, lowered by tests to make many members.
var packMemberText int64 = PackMemberText

// Ref locates one trial's trace. In a file of its own (Bytes == 0) the
// trace is the whole file; in a pack it is the Bytes of text that start
// Offset bytes into the text of the gzip member at byte Member.
type Ref struct {
	Path   string
	Member int64
	Offset int64
	Bytes  int64
}

// RefOf reads a record's trace reference.
func RefOf(r trial.Record) Ref {
	return Ref{Path: r.Trace, Member: r.TraceMember, Offset: r.TraceOffset, Bytes: r.TraceBytes}
}

// Set stores the reference in a record (Path as given, relative to the
// run directory).
func (ref Ref) Set(r *trial.Record) {
	r.Trace, r.TraceMember, r.TraceOffset, r.TraceBytes = ref.Path, ref.Member, ref.Offset, ref.Bytes
}

// Packed reports whether the reference points into a pack.
func (ref Ref) Packed() bool { return ref.Bytes > 0 }

// Pack appends the traces of many trials, one at a time, to one
// compressed file.
type Pack struct {
	mu     sync.Mutex
	f      *os.File
	bw     *bufio.Writer // between the compressor and the file
	size   int64         // compressed bytes handed to bw
	zw     *gzip.Writer  // nil between members
	member int64         // where the open member starts
	text   int64         // text written into the open member
	busy   bool
	err    error
	rel    string
}

// CreatePack creates a new pack file at path; rel is the path trial
// records name it by (relative to the run directory). An existing file
// is never appended to: a pack is only ever written by the sweep that
// created it, so a crash leaves at most its own tail to repair.
func CreatePack(path, rel string) (*Pack, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create trace pack: %w", err)
	}
	p := &Pack{f: f, rel: rel}
	p.bw = bufio.NewWriterSize(countWriter{p}, 32<<10)
	return p, nil
}

// countWriter counts the compressed bytes on their way to the file, so
// that the pack knows where each member starts.
type countWriter struct{ p *Pack }

func (c countWriter) Write(b []byte) (int, error) {
	n, err := c.p.f.Write(b)
	c.p.size += int64(n)
	return n, err
}

// textWriter counts the text a trial writes into the open member.
type textWriter struct{ p *Pack }

func (t textWriter) Write(b []byte) (int, error) {
	n, err := t.p.zw.Write(b)
	t.p.text += int64(n)
	return n, err
}

// Trial starts the next trial's trace. Its Writer keeps the events in
// memory too; its Close ends the trial in the pack (flushed and synced)
// and Ref then says where it lies. One trial at a time.
func (p *Pack) Trial() (*Writer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	if p.busy {
		return nil, errors.New("trace pack: a trial is already being written")
	}
	if p.zw == nil {
		if err := p.bw.Flush(); err != nil {
			p.err = fmt.Errorf("write trace pack: %w", err)
			return nil, p.err
		}
		p.member, p.text = p.size, 0
		zw, _ := gzip.NewWriterLevel(p.bw, packLevel)
		p.zw = zw
	}
	p.busy = true
	w := NewWriter(textWriter{p}, true)
	w.pack = p
	w.ref = Ref{Path: p.rel, Member: p.member, Offset: p.text}
	return w, nil
}

// end finishes the trial w wrote: everything it wrote is decompressible
// and on disk when end returns, so the trial's record may then be
// appended.
func (p *Pack) end(w *Writer) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy = false
	if p.err != nil {
		return p.err
	}
	w.ref.Bytes = p.text - w.ref.Offset
	err := p.zw.Flush()
	if err == nil && p.text >= packMemberText {
		// The trailer need not be synced now: a crash before the next
		// trial's sync leaves a member without its trailer, which a
		// reader of a recorded trial never reaches and a resume repairs.
		err = p.zw.Close()
		p.zw = nil
	}
	if err == nil {
		err = p.bw.Flush()
	}
	if err == nil {
		err = p.f.Sync()
	}
	if err != nil {
		p.err = fmt.Errorf("write trace pack: %w", err)
	}
	return p.err
}

// Close ends the open member and closes the file.
func (p *Pack) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.err
	if p.zw != nil {
		err = errors.Join(err, p.zw.Close())
		p.zw = nil
	}
	if p.f == nil {
		return err
	}
	err = errors.Join(err, p.bw.Flush(), p.f.Sync(), p.f.Close())
	p.f = nil
	return err
}

// Opener opens a file of a run directory by its relative path; an
// os.Root's Open keeps every path inside the directory.
type Opener interface {
	Open(name string) (*os.File, error)
}

// OpenRef opens the JSONL text of one trial's trace, plain or compressed,
// in a file of its own or in a pack. Reading a packed trial that ends
// before its Bytes (a file cut short) fails with io.ErrUnexpectedEOF,
// which Each and Read report as ErrTruncated.
func OpenRef(dir Opener, ref Ref) (io.ReadCloser, error) {
	f, err := dir.Open(ref.Path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	if ref.Member < 0 || ref.Offset < 0 || ref.Bytes < 0 {
		f.Close()
		return nil, fmt.Errorf("%s: trace position %d+%d:%d is negative", ref.Path, ref.Member, ref.Offset, ref.Bytes)
	}
	if ref.Member > 0 {
		if _, err := f.Seek(ref.Member, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", ref.Path, err)
		}
	}
	br, zr, err := decompress(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", ref.Path, err)
	}
	var r io.Reader = br
	if ref.Packed() {
		if zr == nil {
			f.Close()
			return nil, fmt.Errorf("%s: byte %d is not the start of a compressed member", ref.Path, ref.Member)
		}
		// A trial lies inside one member.
		zr.Multistream(false)
		if _, err := io.CopyN(io.Discard, br, ref.Offset); err != nil {
			zr.Close()
			f.Close()
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%s: the member at byte %d ends before text offset %d: %w", ref.Path, ref.Member, ref.Offset, ErrTruncated)
			}
			return nil, fmt.Errorf("%s: %w", ref.Path, err)
		}
		r = &exactReader{r: br, left: ref.Bytes}
	}
	return struct {
		io.Reader
		io.Closer
	}{r, closers{zr, f}}, nil
}

// exactReader reads exactly left bytes: an early end is a truncation.
type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(b []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > e.left {
		b = b[:e.left]
	}
	n, err := e.r.Read(b)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// ReadRef reads one trial's events through dir.
func ReadRef(dir Opener, ref Ref) ([]Event, error) {
	rc, err := OpenRef(dir, ref)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	evs, err := Read(rc)
	if err != nil {
		return evs, fmt.Errorf("%s: %w", ref.Path, err)
	}
	return evs, nil
}

// PackPrefix starts the name of every pack file a sweep writes into a
// run directory's traces/ (traces/pack-<session>-<worker>.jsonl.gz).
const PackPrefix = "pack-"

// byteCounter counts the bytes a decompressor consumes, so that the end
// of a gzip member in the file is known exactly.
type byteCounter struct {
	br *bufio.Reader
	n  int64
}

func (c *byteCounter) Read(b []byte) (int, error) {
	n, err := c.br.Read(b)
	c.n += int64(n)
	return n, err
}

func (c *byteCounter) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// RepairPack cuts a pack to the traces recorded from it after a crash:
// the gzip member at byte member keeps its first textEnd bytes of text
// (the end of the last recorded trial) and ends properly, and nothing
// follows it. A pack already in that state is left untouched (false). The
// new file is written beside the old and renamed over it, so a crash
// during the repair loses nothing. Text the records point to that is not
// there is an error wrapping ErrTruncated, and the file is left as is.
func RepairPack(path string, member, textEnd int64) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("repair trace pack: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("repair trace pack: %w", err)
	}
	if _, err := f.Seek(member, io.SeekStart); err != nil {
		return false, fmt.Errorf("repair trace pack %s: %w", path, err)
	}
	bc := &byteCounter{br: bufio.NewReader(f)}
	zr, err := gzip.NewReader(bc)
	if err != nil {
		return false, fmt.Errorf("repair trace pack %s: byte %d: %w", path, member, err)
	}
	zr.Multistream(false)
	var kept bytes.Buffer
	n, err := io.CopyN(&kept, zr, textEnd)
	if n < textEnd {
		return false, fmt.Errorf("repair trace pack %s: the member at byte %d holds %d bytes of text, its records name %d (%v): %w", path, member, n, textEnd, err, ErrTruncated)
	}
	rest, rerr := io.Copy(io.Discard, zr)
	if rerr == nil && rest == 0 && member+bc.n == st.Size() {
		return false, nil // ends where its last recorded trial does
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return false, fmt.Errorf("repair trace pack: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		tmp.Close()
		return false, fmt.Errorf("repair trace pack %s: %w", path, err)
	}
	bw := bufio.NewWriter(tmp)
	_, err = io.CopyN(bw, f, member)
	if err == nil {
		zw, _ := gzip.NewWriterLevel(bw, packLevel)
		if _, err = zw.Write(kept.Bytes()); err == nil {
			err = zw.Close()
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return false, fmt.Errorf("repair trace pack %s: %w", path, err)
	}
	return true, nil
}
