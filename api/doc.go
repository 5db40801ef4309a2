// Package api holds padd's wire types (Pad's /api/v1 JSON shapes) and the
// Go client that padctl, the MCP server, the tray, sync and the tests use
// to talk to padd.
//
// Shapes follow a real Pad server: an item's fields and tags travel as
// JSON-encoded strings, as do a collection's schema and settings, because
// Pad's own CLI decodes them that way. Shapes are Pad's (pad-cli-wire.md
// §3, the observed API); members Pad lacks are additive and say so.
package api
