package proxy

// FastCallsTaken is how many tools/call requests took ServeStdio's short
// way to p so far.
func FastCallsTaken(p *Proxy) int64 { return p.fastCalls.Load() }
