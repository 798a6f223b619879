package msgs

// Vector3 is geometry_msgs/Vector3.
type Vector3 struct {
	X float64 `ros:"x"`
	Y float64 `ros:"y"`
	Z float64 `ros:"z"`
}

// Type returns &Vector3Type.
func (*Vector3) Type() *Type { return &Vector3Type }

// Size returns the encoded size in bytes.
func (m *Vector3) Size() int { return 24 }

// AppendTo appends the encoded message to b.
func (m *Vector3) AppendTo(b []byte) []byte {
	return appendF64(appendF64(appendF64(b, m.X), m.Y), m.Z)
}

// Marshal returns the encoded message.
func (m *Vector3) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Vector3) Unmarshal(b []byte) error {
	d := newDecoder(b, Vector3Type.Name)
	m.decode(&d)
	return d.end()
}

func (m *Vector3) decode(d *decoder) {
	m.X = d.f64("x")
	m.Y = d.f64("y")
	m.Z = d.f64("z")
}

// Quaternion is geometry_msgs/Quaternion.
type Quaternion struct {
	X float64 `ros:"x"`
	Y float64 `ros:"y"`
	Z float64 `ros:"z"`
	W float64 `ros:"w"`
}

// Type returns &QuaternionType.
func (*Quaternion) Type() *Type { return &QuaternionType }

// Size returns the encoded size in bytes.
func (m *Quaternion) Size() int { return 32 }

// AppendTo appends the encoded message to b.
func (m *Quaternion) AppendTo(b []byte) []byte {
	return appendF64(appendF64(appendF64(appendF64(b, m.X), m.Y), m.Z), m.W)
}

// Marshal returns the encoded message.
func (m *Quaternion) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Quaternion) Unmarshal(b []byte) error {
	d := newDecoder(b, QuaternionType.Name)
	m.decode(&d)
	return d.end()
}

func (m *Quaternion) decode(d *decoder) {
	m.X = d.f64("x")
	m.Y = d.f64("y")
	m.Z = d.f64("z")
	m.W = d.f64("w")
}

// Transform is geometry_msgs/Transform (extrinsics on tf topics, pose transforms).
type Transform struct {
	Translation Vector3    `ros:"translation"`
	Rotation    Quaternion `ros:"rotation"`
}

// Type returns &TransformType.
func (*Transform) Type() *Type { return &TransformType }

// Size returns the encoded size in bytes.
func (m *Transform) Size() int { return 56 }

// AppendTo appends the encoded message to b.
func (m *Transform) AppendTo(b []byte) []byte {
	return m.Rotation.AppendTo(m.Translation.AppendTo(b))
}

// Marshal returns the encoded message.
func (m *Transform) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Transform) Unmarshal(b []byte) error {
	d := newDecoder(b, TransformType.Name)
	d.push("translation")
	m.Translation.decode(&d)
	d.pop()
	d.push("rotation")
	m.Rotation.decode(&d)
	d.pop()
	return d.end()
}

// Accel is geometry_msgs/Accel (pose acceleration).
type Accel struct {
	Linear  Vector3 `ros:"linear"`
	Angular Vector3 `ros:"angular"`
}

// Type returns &AccelType.
func (*Accel) Type() *Type { return &AccelType }

// Size returns the encoded size in bytes.
func (m *Accel) Size() int { return 48 }

// AppendTo appends the encoded message to b.
func (m *Accel) AppendTo(b []byte) []byte { return m.Angular.AppendTo(m.Linear.AppendTo(b)) }

// Marshal returns the encoded message.
func (m *Accel) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Accel) Unmarshal(b []byte) error {
	d := newDecoder(b, AccelType.Name)
	decodeLinAng(&d, &m.Linear, &m.Angular)
	return d.end()
}

// Twist is geometry_msgs/Twist (pose velocity).
type Twist struct {
	Linear  Vector3 `ros:"linear"`
	Angular Vector3 `ros:"angular"`
}

// Type returns &TwistType.
func (*Twist) Type() *Type { return &TwistType }

// Size returns the encoded size in bytes.
func (m *Twist) Size() int { return 48 }

// AppendTo appends the encoded message to b.
func (m *Twist) AppendTo(b []byte) []byte { return m.Angular.AppendTo(m.Linear.AppendTo(b)) }

// Marshal returns the encoded message.
func (m *Twist) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Twist) Unmarshal(b []byte) error {
	d := newDecoder(b, TwistType.Name)
	decodeLinAng(&d, &m.Linear, &m.Angular)
	return d.end()
}

func decodeLinAng(d *decoder, lin, ang *Vector3) {
	decodeVector3(d, "linear", lin)
	decodeVector3(d, "angular", ang)
}

func decodeVector3(d *decoder, field string, v *Vector3) {
	d.push(field)
	v.decode(d)
	d.pop()
}
