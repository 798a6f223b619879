package rsdump

// The FNV-1a 64 hash (the offset basis and prime of the FNV specification,
// those of hash/fnv) of many outputs at once. Each step of FNV-1a, an xor
// and a multiplication by the prime, waits for the step before, so one hash
// runs at the multiplier's latency and leaves it idle most of the time;
// independent hashes advanced in the same loop keep it busy, up to four.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// fnvMany sets sums[i] to the FNV-1a 64 hash of data[i], four at a time.
func fnvMany(data [][]byte, sums []uint64) {
	for len(data) > 0 {
		k := min(len(data), 4)
		fnvLanes(data[:k], sums[:k])
		data, sums = data[k:], sums[k:]
	}
}

// fnvLanes is fnvMany of at most four slices: all of them step together
// over the bytes the shortest still has, until one is left.
func fnvLanes(data [][]byte, sums []uint64) {
	var rest [4][]byte
	var h [4]uint64
	k := copy(rest[:], data)
	for i := range k {
		h[i] = fnvOffset64
	}
	for {
		var live [4]int // lanes with bytes left
		nl, n := 0, 0
		for i := range k {
			if l := len(rest[i]); l > 0 {
				if nl == 0 || l < n {
					n = l
				}
				live[nl] = i
				nl++
			}
		}
		switch nl {
		case 0:
			copy(sums, h[:k])
			return
		case 1:
			i := live[0]
			h[i] = fnvUpdate(h[i], rest[i])
			rest[i] = nil
			continue
		}
		// Four lanes of n bytes; missing ones repeat the last live lane,
		// whose result is taken from its own lane only.
		var src [4][]byte
		var hs [4]uint64
		for j := range src {
			i := live[min(j, nl-1)]
			src[j], hs[j] = rest[i][:n], h[i]
		}
		fnv4(&hs, src[0], src[1], src[2], src[3])
		for j := range nl {
			i := live[j]
			h[i], rest[i] = hs[j], rest[i][n:]
		}
	}
}

// fnv4 advances the four hashes h over the bytes of a, and as many of b, c
// and d.
func fnv4(h *[4]uint64, a, b, c, d []byte) {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	h0, h1, h2, h3 := h[0], h[1], h[2], h[3]
	for i, x := range a {
		h0 = (h0 ^ uint64(x)) * fnvPrime64
		h1 = (h1 ^ uint64(b[i])) * fnvPrime64
		h2 = (h2 ^ uint64(c[i])) * fnvPrime64
		h3 = (h3 ^ uint64(d[i])) * fnvPrime64
	}
	h[0], h[1], h[2], h[3] = h0, h1, h2, h3
}

// fnvUpdate advances the hash h over b.
func fnvUpdate(h uint64, b []byte) uint64 {
	for _, x := range b {
		h = (h ^ uint64(x)) * fnvPrime64
	}
	return h
}
