package api

// Version is this build's version, set with
// -ldflags "-X github.com/padd/padd/api.Version=v1.2.3".
var Version = "dev"

// VersionHeader is carried by every padd answer: padd's version.
const VersionHeader = "X-Padd-Version"
