package storage

import (
	"github.com/padd/padd/model"
)

var agent = model.Actor{Kind: model.ActorAgent, Name: "claude", Source: model.SourceMCP}
