package viewer

import (
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/internal/synthscript"
	"github.com/rsbag/rsbag/internal/testsupport/refcam"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/software"
)

// recordReference records the synthetic camera configured as the reference
// bag name (refcam.Config: the same rsgen command line) with
// rsbag's recorder, in a synctest bubble (bag times are stream times), and
// returns the bag's path. Unlike librealsense's recorder around its software
// device, which does not record option changes of software-device options,
// ours records them.
func recordReference(t *testing.T, name string, mutate func(*software.SyntheticConfig)) string {
	t.Helper()
	cfg, ok := refcam.Config(name)
	if !ok {
		t.Fatalf("no reference config %s", name)
	}
	cfg.Speed = 1
	synthscript.Of(&cfg).PauseAt, synthscript.Of(&cfg).ResumeAt = 0, 0
	if mutate != nil {
		mutate(&cfg)
	}
	path := filepath.Join(t.TempDir(), name+".bag")
	synctest.Test(t, func(t *testing.T) { synthrig.Bag(t, path, cfg) })
	return path
}

// recordSynthetic records the synthetic camera configured by cfg on the
// wall clock (bag times are real arrival times) and returns the bag's path.
func recordSynthetic(t testing.TB, name string, cfg software.SyntheticConfig) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".bag")
	synthrig.Bag(t, path, cfg)
	return path
}
