package rig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
)

// Recording records several devices as one session: one bag per device,
// "rig.<serial>.bag" for the file "rig.bag", all with the same time origin,
// and the manifest "rig.session.json" naming them.
type Recording struct {
	// Devices are the record devices, in the order of the devices given to
	// Create: stream through their sensors to record.
	Devices []*record.Device
	// Manifest is the session's manifest, written by Create.
	Manifest *Manifest
	// Paths are the bags' paths and ManifestFile the manifest's.
	Paths        []string
	ManifestFile string
}

// Create starts a session recording of devs: it creates a bag per device
// (each device must have a distinct, non-empty serial number) and writes
// the manifest at once, so that a session killed while recording is still
// described. Every bag's bag time 0 is opts.Origin, or now when it is zero.
// Existing files of those names are replaced, as record.Create replaces its
// file (rs-record refuses to without --force); a session whose files would
// share a name is refused (ErrSameFile) before any is created.
func Create(file string, devs []device.Device, opts *record.Options) (*Recording, error) {
	if len(devs) == 0 {
		return nil, errors.New("rig: no device to record")
	}
	o := record.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Origin.IsZero() {
		o.Origin = time.Now()
	}
	m := &Manifest{Format: manifestFormat, Version: manifestVersion, Start: o.Origin.UTC()}
	r := &Recording{Manifest: m, ManifestFile: rigfiles.ManifestPath(file)}
	seen := map[string]bool{}
	names := map[string]string{filepath.Clean(r.ManifestFile): "the manifest"} // file → what it is
	for i, d := range devs {
		info := d.Info()
		serial := info[sensor.CameraInfoSerialNumber]
		switch {
		case serial == "":
			return nil, fmt.Errorf("rig: device %d has no serial number", i)
		case seen[serial]:
			return nil, fmt.Errorf("%w: serial %s given twice", ErrSameDevice, serial)
		}
		seen[serial] = true
		p := rigfiles.BagPath(file, serial)
		if what, ok := names[filepath.Clean(p)]; ok {
			return nil, fmt.Errorf("%w: %s would be the bag of %s and %s", ErrSameFile, p, serial, what)
		}
		names[filepath.Clean(p)] = "the bag of " + serial
		rel, err := filepath.Rel(filepath.Dir(r.ManifestFile), p)
		if err != nil {
			rel = filepath.Base(p)
		}
		m.Bags = append(m.Bags, ManifestBag{File: filepath.ToSlash(rel), Serial: serial, Name: info[sensor.CameraInfoName]})
		r.Paths = append(r.Paths, p)
	}
	for i, d := range devs {
		rec, err := record.Create(d, r.Paths[i], &o)
		if err != nil {
			r.abort()
			return nil, fmt.Errorf("rig: %w", err)
		}
		r.Devices = append(r.Devices, rec)
	}
	if err := m.WriteFile(r.ManifestFile); err != nil {
		r.abort()
		return nil, err
	}
	return r, nil
}

// abort closes the record devices made so far and removes their bags.
func (r *Recording) abort() {
	for i, d := range r.Devices {
		d.Close()
		os.Remove(r.Paths[i])
	}
}

// Close finishes every bag (see record.Device.Close).
func (r *Recording) Close() error {
	var errs []error
	for _, d := range r.Devices {
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
}
