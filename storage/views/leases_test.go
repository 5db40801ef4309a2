package views

import (
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

const (
	workerA = "wk_0123456789abcdef0123456789abcdef"
	workerB = "wk_fedcba9876543210fedcba9876543210"
)

func claimOf(holder, worker string, ttl time.Duration) storage.LeaseClaim {
	return storage.LeaseClaim{Claimant: model.Claimant{Holder: holder, Worker: worker}, TTL: ttl}
}
