package api

// What padd says about itself to any client: health and the
// capabilities it advertises.

// Health answers GET /health.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	PID     int    `json:"pid,omitempty"`
	// CloudMode is Pad's: false on every padd.
	CloudMode bool `json:"cloud_mode"`
}

// Capabilities answers GET /server/capabilities.
type Capabilities struct {
	CollectionResolution bool     `json:"collection_resolution"`
	Capabilities         []string `json:"capabilities"`
	Version              string   `json:"version"`
}

// Has reports whether the server advertises a capability.
func (c *Capabilities) Has(name string) bool {
	for _, n := range c.Capabilities {
		if n == name {
			return true
		}
	}
	return false
}
