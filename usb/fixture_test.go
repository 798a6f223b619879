package usb_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
)

var update = flag.Bool("update", false, "rewrite testdata/d435i.hex")

// loadD435i returns the D435i configuration descriptor fixture.
func loadD435i(t testing.TB) []byte {
	t.Helper()
	f, err := os.Open("testdata/d435i.hex")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := usbtest.ParseHex(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFixtureUpToDate(t *testing.T) {
	var buf bytes.Buffer
	if err := usbtest.FormatD435Hex(&buf, true); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("testdata/d435i.hex", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(loadD435i(t), usbtest.D435Config(true)) {
		t.Fatal("testdata/d435i.hex differs from usbtest.D435Config; run go test -run TestFixtureUpToDate -update")
	}
}
