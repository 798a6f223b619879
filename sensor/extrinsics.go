package sensor

// The methods below compute with rigid transforms exactly as librealsense
// does, in float32 with one rounding per operation, so that derived
// extrinsics (including their negative zeros) match librealsense bit for bit.
// Rotations are column-major 3×3 matrices (Extrinsics.Rotation: column j is
// Rotation[3j:3j+3]).

// IdentityExtrinsics returns the identity transform.
func IdentityExtrinsics() Extrinsics {
	return Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}
}

// mulVec returns M·x = (col0·x0 + col1·x1) + col2·x2, each product and sum
// rounded to float32 (the explicit conversions forbid fused multiply-add).
func mulVec(m *[9]float32, x [3]float32) [3]float32 {
	var r [3]float32
	for i := 0; i < 3; i++ {
		a := float32(m[i] * x[0])
		b := float32(m[3+i] * x[1])
		c := float32(m[6+i] * x[2])
		r[i] = float32(float32(a+b) + c)
	}
	return r
}

// transpose returns Mᵀ.
func transpose(m *[9]float32) [9]float32 {
	var t [9]float32
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			t[3*c+r] = m[3*r+c]
		}
	}
	return t
}

// Inverse returns (R, t)⁻¹ = (Rᵀ, (Rᵀ·t)·(−1)).
func (e Extrinsics) Inverse() Extrinsics {
	rt := transpose(&e.Rotation)
	v := mulVec(&rt, e.Translation)
	for i := range v {
		v[i] = float32(v[i] * -1)
	}
	return Extrinsics{Rotation: rt, Translation: v}
}

// Compose returns e·b = (R1·R2, R1·t2 + t1): the transform that applies b
// first, then e.
func (e Extrinsics) Compose(b Extrinsics) Extrinsics {
	var out Extrinsics
	for j := 0; j < 3; j++ {
		col := mulVec(&e.Rotation, [3]float32{b.Rotation[3*j], b.Rotation[3*j+1], b.Rotation[3*j+2]})
		copy(out.Rotation[3*j:3*j+3], col[:])
	}
	v := mulVec(&e.Rotation, b.Translation)
	for i := range v {
		out.Translation[i] = float32(v[i] + e.Translation[i])
	}
	return out
}
