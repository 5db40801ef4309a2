package api

// TagCount is one tag of a workspace's live items and how many carry it
// (GET /workspaces/{ws}/tags, a bare array, the most used first).
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}
