package mcpstdio

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// instructions is sent in every handshake, so every byte of it costs
// every agent on every connection: TestInstructionsBudget holds it to
// instructionsBudget bytes. Detail belongs in tool descriptions, which
// are read only when the tool is considered.
const instructions = `padd is Pad on this machine: workspaces of collections (tasks, ideas, plans, docs, ...) holding items addressed by ref (TASK-5).

Start with pad_set_workspace: it pins the workspace for this session and returns its bootstrap (collections with their field schemas, roles, a dashboard). Without it, calls use the workspace param, then PAD_WORKSPACE, then the nearest .pad.toml, then the only workspace.

Working with items (pad_item):
- list returns open items as summaries with seq; pass all for finished ones, full for bodies. A truncated list says so (has_more); narrow the filters rather than paging.
- Write fields as fields {"key": value} (JSON types kept) or field ["key=value"]; the collection's schema (pad_collection list) names keys, types and options.
- Before changing content, read the item and send expected_seq; an update_conflict means someone wrote first: re-read and merge, do not resend.
- Record why with comment, and progress with note and decide.

Errors come back as {code, message, hint, details}: follow the hint.`

const instructionsBudget = 1536

// prompt is one workflow prompt: a name, what it is for, and the message
// that starts it. The words are padd's own.
type prompt struct {
	name, desc, text string
}

var prompts = []prompt{
	{"pad_plan", "Turn a goal into a plan item with ordered, checkable tasks.",
		`Help me plan a piece of work in Pad.

1. Call pad_set_workspace if no workspace is chosen yet, and read the bootstrap: which collections exist (plans, tasks) and what fields and statuses they use.
2. Ask me what the goal is and what "done" means, unless I already said. Look for existing plans or tasks on the same subject with pad_search query first, and say if you find overlap.
3. Propose the plan: a title, a short description of the outcome, and 3 to 10 tasks, each small enough to finish in one sitting, in the order they should happen. Wait for my go-ahead.
4. Create the plan (pad_item create collection=plans), then each task with parent set to the plan's ref. Link tasks that must wait for another with pad_item link link_type=blocks.
5. Finish with the plan's ref and a one-line list of the tasks you created.`},
	{"pad_ideate", "Explore an idea and capture the promising ones as items.",
		`Let's brainstorm, and keep what is worth keeping in Pad.

1. Call pad_set_workspace if needed. Check what already exists on the topic with pad_search query so we build on it rather than repeat it.
2. Ask me for the topic or problem, then offer several distinct directions, each in two or three sentences with its main risk.
3. After each round, ask which directions to keep. Capture each kept one as an item in the ideas collection (pad_item create collection=ideas) with the reasoning in its content; add to an existing idea with pad_item comment instead of duplicating it.
4. When we stop, list the refs you created or touched and suggest which one, if any, is ready to become a plan.`},
	{"pad_retro", "Look back at finished work and record what to keep and change.",
		`Run a short retrospective on work tracked in Pad.

1. Call pad_set_workspace if needed. Ask which plan or period to look at, unless I said.
2. Gather the facts: pad_item get the plan, pad_item list parent=<plan ref> all=true for its tasks, and pad_project activity for what changed recently. Note what finished, what was dropped, and what is still open.
3. Summarize in three parts: what went well, what got in the way, what to change next time. Keep each point concrete and tied to an item ref.
4. With my agreement, record the outcome: a comment on the plan (pad_item comment), a decision for each agreed change (pad_item decide), and new tasks for follow-ups.`},
	{"pad_onboard", "Set up a Pad workspace for the project in the current directory.",
		`Help me set up Pad for this project.

1. Look at the project: its README, layout and any existing TODO or issue lists, to understand what it is and what work is ahead.
2. Call pad_workspace list. If a workspace already fits this project, propose using it; otherwise propose a name and create it with pad_workspace create. Then call pad_set_workspace.
3. Review the collections in the bootstrap. Propose changes only if the project clearly needs them (for example a bugs collection), and make them with pad_collection after I agree.
4. Capture what you learned: a doc describing the project, and the first few tasks or ideas you found, each as an item with a clear title.
5. Tell me to add a .pad.toml with workspace = "<slug>" at the project root so future sessions pick this workspace on their own.`},
}

func (s *Server) addPrompts() {
	for _, p := range prompts {
		p := p
		s.mcp.AddPrompt(mcpgo.NewPrompt(p.name, mcpgo.WithPromptDescription(p.desc)),
			func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
				return mcpgo.NewGetPromptResult(p.desc, []mcpgo.PromptMessage{
					mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent(p.text)),
				}), nil
			})
	}
}
