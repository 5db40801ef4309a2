package api

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// inProcess stands in for padd's in-process transport (daemon's
// localTransport): it answers every request with v as an Answer.
type inProcess struct {
	status int
	v      any
}

func (a inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: a.status, Header: http.Header{}, Body: &Answer{V: a.v}, ContentLength: -1, Request: req}, nil
}

func answerClient(status int, v any) *Client {
	return &Client{BaseURL: "http://127.0.0.1", HTTP: &http.Client{Transport: inProcess{status, v}}}
}

func TestAnswerHandsTheValueToItsOwnType(t *testing.T) {
	it := Item{Ref: "TASK-1", RelationTargets: map[string]any{"parent": 7}}
	var got Item
	if _, err := answerClient(200, it).Do(context.Background(), "GET", "/x", nil, nil, &got); err != nil {
		t.Fatal(err)
	}
	// The value itself: the number stays an int, where JSON would have
	// made it a json.Number.
	if got.Ref != "TASK-1" || got.RelationTargets["parent"] != 7 {
		t.Errorf("got %+v", got)
	}
}

func TestAnswerOfAnotherTypeIsReadAsJSON(t *testing.T) {
	var got struct {
		Ref    string         `json:"ref"`
		Fields map[string]any `json:"relation_targets"`
	}
	_, err := answerClient(200, Item{Ref: "TASK-2", RelationTargets: map[string]any{"n": 9007199254740993}}).
		Do(context.Background(), "GET", "/x", nil, nil, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got.Ref != "TASK-2" || got.Fields["n"] != json.Number("9007199254740993") {
		t.Errorf("got %+v", got)
	}
}

func TestVerbatimTakesTheValueInProcess(t *testing.T) {
	type reply struct {
		Ref string `json:"ref"`
	}
	var got Verbatim
	if _, err := answerClient(200, reply{Ref: "TASK-3"}).Do(context.Background(), "GET", "/x", nil, nil, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.V, reply{Ref: "TASK-3"}) {
		t.Errorf("got %#v", got.V)
	}
}

func TestAnErrorAnswerIsAnError(t *testing.T) {
	var got Item
	_, err := answerClient(409, ErrorEnvelope{Error: &Error{Code: "update_conflict", Message: "changed meanwhile"}}).
		Do(context.Background(), "PATCH", "/x", nil, nil, &got)
	if e, ok := err.(*Error); !ok || e.Code != "update_conflict" || e.Status != 409 {
		t.Errorf("err %v", err)
	}
}
