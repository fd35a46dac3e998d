package usse

type textureSet struct{}
type memory struct{}

func (t *Instance) dual(o *op)   { t.fault = errUnsupported }
func (t *Instance) sample(o *op) { t.fault = errUnsupported }
func (t *Instance) memOp(o *op)  { t.fault = errUnsupported }
func (t *Instance) intOp(o *op)  { t.fault = errUnsupported }
