package mcpstdio

import (
	"runtime"

	"github.com/padd/padd/api"
)

// ToolSurfaceVersion is the version of padd's MCP tool catalog contract:
// the tool names, action enums, parameter names and types, and the
// behaviour behind them, as catalog.go declares and the golden
// tools/list file pins.
//
// It is padd's own series, not Pad's. The names follow Pad's catalog
// (Pad's ToolSurfaceVersion 0.25, plus the later Pad additions marked in
// catalog.go), but no Pad version describes exactly this surface, so
// advertising one would promise behaviour padd does not have. The
// "padd." prefix keeps a client that compares Pad's numbers from
// reading ours as one of them.
//
// Bump it (padd.N -> padd.N+1) with Pad's rules: when a tool, action or
// param is renamed or removed or changes type (breaking); when an
// action's meaning changes (BEHAVIOR); when one is added (ADDITIVE).
// An action moving from "not implemented" to working is ADDITIVE.
// Resources and prompts are outside it.
//
// padd.2 (BEHAVIOR): a call that names no workspace takes PAD_WORKSPACE
// before a .pad.toml, as padctl does (it took .pad.toml first).
//
// padd.3 (ADDITIVE, issue 42): pad_item get takes lines (the body as
// numbered lines) and agent (the compact projection); pad_item search
// (pad_search query under pad_item, with a query param); pad_item
// link-pr and unlink-pr (a pull request link, answered as code_context);
// pad_playbook match (answers decision_provider_unavailable: no LLM);
// pad_workspace storage and audit-log answer (they were not_implemented).
const ToolSurfaceVersion = "padd.3"

// CmdhelpVersion is Pad's cmdhelp contract version. padd dispatches
// in-process rather than through CLI help trees, so it only ever
// advertises the version whose shape its catalog mirrors.
const CmdhelpVersion = "0.1"

// PadCatalogBase is the Pad ToolSurfaceVersion whose catalog padd's names
// start from (reported in pad_meta version, not in the handshake).
const PadCatalogBase = "0.25"

// experimental is capabilities.experimental of the handshake.
func experimental() map[string]any {
	return map[string]any{
		"padToolSurface": map[string]any{"version": ToolSurfaceVersion, "tool_surface_stable": true},
		"padCmdhelp":     map[string]any{"version": CmdhelpVersion, "tool_surface_stable": true},
	}
}

// versionDoc is pad://_meta/version: the handshake's two versions.
type versionDoc struct {
	ToolSurfaceVersion string `json:"tool_surface_version"`
	CmdhelpVersion     string `json:"cmdhelp_version"`
}

// versionFull is pad_meta version: the resource's document plus the
// running padd's version, this server's, and the MCP protocol version of
// the request.
type versionFull struct {
	versionDoc
	PadCatalogBase     string `json:"pad_catalog_base"`
	PaddVersion        string `json:"padd_version"`
	PadctlVersion      string `json:"padctl_version"`
	MCPProtocolVersion string `json:"mcp_protocol_version"`
}

func versionDocument() versionDoc {
	return versionDoc{ToolSurfaceVersion: ToolSurfaceVersion, CmdhelpVersion: CmdhelpVersion}
}

// serverInfo answers pad_meta server-info.
func serverInfo() map[string]any {
	return map[string]any{"name": ServerName, "version": api.Version, "runtime": runtime.Version(),
		"transport": "stdio"}
}

// ServerName is serverInfo.name in the handshake.
const ServerName = "padd"
