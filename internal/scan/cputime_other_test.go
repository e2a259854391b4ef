//go:build !unix

package scan

import "time"

func processCPU() time.Duration { return 0 }
