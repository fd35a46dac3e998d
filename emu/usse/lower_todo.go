package usse

func lowerDual(l *lowerer)    { l.fail("dual issue: %w", errUnsupported) }
func lowerSop2(l *lowerer)    { l.fail("sop2: %w", errUnsupported) }
func lowerSop3(l *lowerer)    { l.fail("sop3: %w", errUnsupported) }
func lowerSop2m(l *lowerer)   { l.fail("sop2m: %w", errUnsupported) }
func lowerI8mad(l *lowerer)   { l.fail("i8mad: %w", errUnsupported) }
func lowerI16mad(l *lowerer)  { l.fail("i16mad: %w", errUnsupported) }
func lowerI32mad(l *lowerer)  { l.fail("i32mad: %w", errUnsupported) }
func lowerI32mad2(l *lowerer) { l.fail("i32mad2: %w", errUnsupported) }
func lowerSmp(l *lowerer)     { l.fail("smp: %w", errUnsupported) }
func lowerLoad(l *lowerer)    { l.fail("load: %w", errUnsupported) }
func lowerStore(l *lowerer)   { l.fail("store: %w", errUnsupported) }
