package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Output file names inside a run directory.
const (
	SummaryFile = "summary.json"
	LongFile    = "metrics_long.csv"
	DeltasFile  = "deltas_vs_none.md"
	ResultsFile = "RESULTS.md"
)

// MatrixFile is the file name of one metric's matrix.
func MatrixFile(metric string) string { return "matrix_" + metric + ".csv" }

// WriteAll writes every report file into runDir. Each file is written to
// a temporary name and renamed into place, so a failure never leaves a
// half-written report over a good one.
func WriteAll(runDir string, s *Summary) error {
	if err := writeFile(runDir, SummaryFile, func(w io.Writer) error { return WriteJSON(w, s) }); err != nil {
		return err
	}
	for _, m := range MatrixMetrics {
		if err := writeFile(runDir, MatrixFile(m), func(w io.Writer) error { return WriteMatrix(w, s, m) }); err != nil {
			return err
		}
	}
	if err := writeFile(runDir, LongFile, func(w io.Writer) error { return WriteLong(w, s) }); err != nil {
		return err
	}
	if err := writeFile(runDir, DeltasFile, func(w io.Writer) error { return WriteDeltas(w, s) }); err != nil {
		return err
	}
	return writeFile(runDir, ResultsFile, func(w io.Writer) error { return WriteResults(w, s) })
}

// Files lists the names WriteAll writes, in order.
func Files() []string {
	out := []string{SummaryFile}
	for _, m := range MatrixMetrics {
		out = append(out, MatrixFile(m))
	}
	return append(out, LongFile, DeltasFile, ResultsFile)
}

func writeFile(dir, name string, fill func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err = os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
