package composition

// Options returns one Option made of opts, applied in order, for a package
// that gives several options as one (composition/otelmcp's ClientOption:
// an interceptor and an events callback).
func Options(opts ...Option) Option {
	var o Option
	var applies []func(*config)
	for _, x := range opts {
		o.conn = append(o.conn, x.conn...)
		if x.apply != nil {
			applies = append(applies, x.apply)
		}
	}
	if len(applies) > 0 {
		o.apply = func(c *config) {
			for _, a := range applies {
				a(c)
			}
		}
	}
	return o
}
