package api

// Error is Pad's error body: {"error":{"code","message","details"}}.
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	// Status is the HTTP status the error came with (not on the wire).
	Status int `json:"-"`
}

func (e *Error) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Message + " (" + e.Code + ")"
}

// ErrorEnvelope wraps an Error on the wire.
type ErrorEnvelope struct {
	Error *Error `json:"error"`
}
