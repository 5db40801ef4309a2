package api

// An item artifact (pad-inventory ITM-19) on the wire: its text is
// written and read by package artifact.

// MaxArtifactBytes bounds an artifact padd takes (Pad's default cap).
const MaxArtifactBytes = 1 << 20

// ArtifactContentType is an artifact's media type.
const ArtifactContentType = "text/markdown; charset=utf-8"

// ArtifactImport answers POST /workspaces/{ws}/import-artifact.
type ArtifactImport struct {
	Ref      string   `json:"ref"`
	Slug     string   `json:"slug"`
	Warnings []string `json:"warnings"`
}
