package storage

import "github.com/padd/padd/model"

// CheckInput refuses a write whose user-supplied strings are longer than
// model's limits (model/limits.go): a validation_error naming the limit,
// and nothing written. Every write path of storage that takes user text
// checks its input here, whatever the door it came through (REST, MCP,
// padctl, sync, a mirror file, a bundle), so the limits are the same
// for all of them and no value past a bbolt key's size reaches a key.
// The daemon checks the same before it starts a write, to refuse early.
// v is one of storage's write inputs.
func CheckInput(v any) error {
	switch in := v.(type) {
	case ItemCreate:
		return model.FirstError(model.LimitTitle.Check(in.Title), model.LimitContent.Check(in.Content),
			model.LimitTag.CheckEach(in.Tags), model.CheckFields(in.Fields),
			model.CheckFields(map[string]any{model.FieldConvention: in.Convention}), model.CheckFields(in.Reserved))
	case *ItemUpdate:
		if in == nil {
			return nil
		}
		err := model.FirstError(model.LimitTitle.CheckPtr(in.Title), model.LimitContent.CheckPtr(in.Content),
			model.CheckFields(in.Fields), model.CheckFields(in.FieldsPatch), model.LimitComment.Check(in.Comment))
		if err == nil && in.Tags != nil {
			err = model.LimitTag.CheckEach(*in.Tags)
		}
		if err == nil && in.AppendNote != nil {
			err = model.LimitComment.CheckEach([]string{in.AppendNote.Summary, in.AppendNote.Details})
		}
		if err == nil && in.AppendDecision != nil {
			err = model.LimitComment.CheckEach([]string{in.AppendDecision.Decision, in.AppendDecision.Rationale})
		}
		if err == nil && in.LinkPR != nil {
			err = model.CheckReserved(model.FieldGitHubPR, in.LinkPR.Value())
		}
		return err
	case MoveInput:
		return model.CheckFields(in.Fields)
	case []BulkOp:
		for _, op := range in {
			if err := CheckInput(op.Update); err != nil {
				return err
			}
			if op.Move != nil {
				if err := CheckInput(*op.Move); err != nil {
					return err
				}
			}
		}
		return nil
	case CommentCreate:
		return model.LimitComment.Check(in.Body)
	case PatchRequest:
		for _, e := range in.Edits {
			if err := model.LimitContent.CheckEach([]string{e.Old, e.New}); err != nil {
				return err
			}
		}
		return nil
	case WorkspaceCreate:
		return model.FirstError(model.LimitName.Check(in.Name), model.LimitSlug.Check(in.Slug),
			model.LimitDescription.Check(in.Description))
	case WorkspaceUpdate:
		return model.FirstError(model.LimitName.CheckPtr(in.Name), model.LimitDescription.CheckPtr(in.Description))
	case CollectionCreate:
		return model.FirstError(model.LimitName.Check(in.Name), model.LimitSlug.Check(in.Slug),
			model.LimitPrefix.Check(in.Prefix), model.LimitIcon.Check(in.Icon),
			model.LimitDescription.Check(in.Description), model.LimitSchema.Check(in.FieldsDSL))
	case CollectionUpdate:
		return model.FirstError(model.LimitName.CheckPtr(in.Name), model.LimitPrefix.CheckPtr(in.Prefix),
			model.LimitIcon.CheckPtr(in.Icon), model.LimitDescription.CheckPtr(in.Description),
			model.LimitSchema.CheckPtr(in.FieldsDSL))
	case RoleCreate:
		return model.FirstError(model.LimitSlug.Check(in.Slug), model.LimitName.Check(in.Name),
			model.LimitIcon.Check(in.Icon), model.LimitDescription.Check(in.Description),
			model.LimitDescription.Check(in.Tools))
	case RoleUpdate:
		return model.FirstError(model.LimitSlug.CheckPtr(in.Slug), model.LimitName.CheckPtr(in.Name),
			model.LimitIcon.CheckPtr(in.Icon), model.LimitDescription.CheckPtr(in.Description),
			model.LimitDescription.CheckPtr(in.Tools))
	case SavedViewCreate:
		// The config is bounded when parsed (model.ParseViewConfig).
		return model.FirstError(model.LimitName.Check(in.Name), model.LimitSlug.Check(in.Slug))
	case SavedViewUpdate:
		return model.LimitName.CheckPtr(in.Name)
	}
	panic("checkInput: no limits for this input type")
}
