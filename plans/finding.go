package plans

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/schemas"
)

// Severity says whether a finding stops a plan.
type Severity string

// Severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Finding is one thing validation found: a stable code, a message for people and planners, the
// action it concerns (nil for the plan as a whole), a JSON pointer into the plan and a snippet of
// the offending input.
type Finding struct {
	Severity Severity `json:"-"`
	Code     Code     `json:"code"`
	Message  string   `json:"message"`
	Action   *int     `json:"action,omitempty"`
	Pointer  string   `json:"pointer,omitempty"`
	Snippet  string   `json:"snippet,omitempty"`
	// Rule and Fix are a policy rule's id and remedy (POLICY_DENY, POLICY_WARN)
	Rule string `json:"rule,omitempty"`
	Fix  string `json:"fix,omitempty"`
}

// Code is a finding's stable code. Codes are documented in the README and never reused.
type Code string

// The codes, by the stage that finds them. Codes[c] describes each.
const (
	// extraction: getting one JSON object out of what the planner wrote
	ExtractEmpty         Code = "EXTRACT_EMPTY"
	ExtractNoJSON        Code = "EXTRACT_NO_JSON"
	ExtractTruncated     Code = "EXTRACT_TRUNCATED"
	ExtractInvalidJSON   Code = "EXTRACT_INVALID_JSON"
	ExtractNotObject     Code = "EXTRACT_NOT_OBJECT"
	ExtractStrict        Code = "EXTRACT_STRICT"
	ExtractDuplicateKey  Code = "EXTRACT_DUPLICATE_KEY"
	ExtractTooLarge      Code = "EXTRACT_TOO_LARGE"
	ExtractTooDeep       Code = "EXTRACT_TOO_DEEP"
	ExtractNotRegular    Code = "EXTRACT_NOT_REGULAR_FILE"
	ExtractFenceStripped Code = "EXTRACT_FENCE_STRIPPED"
	ExtractProseStripped Code = "EXTRACT_PROSE_STRIPPED"
	ExtractBOMStripped   Code = "EXTRACT_BOM_STRIPPED"
	ExtractSeveral       Code = "EXTRACT_SEVERAL_OBJECTS"
	ExtractInvalidUTF8   Code = "EXTRACT_INVALID_UTF8"
	ExtractDoubleBOM     Code = "EXTRACT_DOUBLE_BOM"
	// limits applied while the JSON is read, before any schema check
	ExtractTooManyActions Code = "EXTRACT_TOO_MANY_ACTIONS"
	ExtractTooManyItems   Code = "EXTRACT_TOO_MANY_ITEMS"
	ExtractStringTooLong  Code = "EXTRACT_STRING_TOO_LONG"

	// schema: the JSON Schema of the plan's version
	SchemaVersionMissing Code = "SCHEMA_VERSION_MISSING"
	SchemaVersionUnknown Code = "SCHEMA_VERSION_UNKNOWN"
	SchemaLegacyField    Code = "SCHEMA_LEGACY_FIELD"
	SchemaUnknownField   Code = "SCHEMA_UNKNOWN_FIELD"
	SchemaMissingField   Code = "SCHEMA_MISSING_FIELD"
	SchemaWrongType      Code = "SCHEMA_WRONG_TYPE"
	SchemaBadValue       Code = "SCHEMA_BAD_VALUE"
	SchemaTooLong        Code = "SCHEMA_TOO_LONG"
	SchemaTooShort       Code = "SCHEMA_TOO_SHORT"
	SchemaUnknownOp      Code = "SCHEMA_UNKNOWN_OP"
	SchemaOpNotInVersion Code = "SCHEMA_OP_NOT_IN_VERSION"
	SchemaInvalid        Code = "SCHEMA_INVALID"
	SchemaXYIncomplete   Code = "SCHEMA_XY_INCOMPLETE"
	SchemaTypeNotInVer   Code = "SCHEMA_TYPE_NOT_IN_VERSION"
	SchemaOpLaterVersion Code = "SCHEMA_OP_LATER_VERSION"

	// meaning: the plan against the model at HEAD
	RefNotFound       Code = "REF_NOT_FOUND"
	RefWrongKind      Code = "REF_WRONG_KIND"
	RefDeleted        Code = "REF_DELETED"
	RefBeforeDeclared Code = "REF_BEFORE_DECLARED"
	RefFailed         Code = "REF_FAILED"
	RefIDDuplicate    Code = "REF_ID_DUPLICATE"
	RelNotAllowed     Code = "REL_NOT_ALLOWED"
	Conflict          Code = "CONFLICT"
	FolderWrongLayer  Code = "FOLDER_WRONG_LAYER"
	FolderPathInvalid Code = "FOLDER_PATH_INVALID"
	TextInvalid       Code = "TEXT_INVALID"
	ViewNotArchimate  Code = "VIEW_NOT_ARCHIMATE"
	StatusNotReady    Code = "STATUS_NOT_READY"
	NoOp              Code = "NOOP"
	DuplicateOnView   Code = "DUPLICATE_ON_VIEW"
	DuplicateRel      Code = "DUPLICATE_RELATIONSHIP"
	NoActions         Code = "NO_ACTIONS"
	NothingToApply    Code = "NOTHING_TO_APPLY"
	QuestionsMissing  Code = "QUESTIONS_MISSING"
	ActionsIgnored    Code = "ACTIONS_IGNORED"
	PlannerWarning    Code = "PLANNER_WARNING"
	ModelProblem      Code = "MODEL_PROBLEM"
	ModelInvalid      Code = "MODEL_INVALID"
	// approval: what a NAME's first valid preview fixed (the ledger's)
	PlanChangedAfterPreview Code = "PLAN_CHANGED_AFTER_PREVIEW"
	PlanWordsChanged        Code = "PLAN_WORDS_CHANGED"
	PolicyVerdictChanged    Code = "POLICY_VERDICT_CHANGED"
	PolicyOpNotAllowed      Code = "POLICY_OP_NOT_ALLOWED"
	PolicyTypeNotAllowed    Code = "POLICY_TYPE_NOT_ALLOWED"
	PolicyProtected         Code = "POLICY_PROTECTED_FOLDER"
	PolicyOutOfScope        Code = "POLICY_OUT_OF_SCOPE"
	TextBlank               Code = "TEXT_BLANK"
	DuplicateName           Code = "DUPLICATE_NAME"
	DuplicateRefused        Code = "DUPLICATE_REFUSED"
	FieldNotForType         Code = "FIELD_NOT_FOR_TYPE"
	ConnectionNotAllowed    Code = "CONNECTION_NOT_ALLOWED"
	StyleInvalid            Code = "STYLE_INVALID"
	MergeNotAllowed         Code = "MERGE_NOT_ALLOWED"
	SelectionTooLarge       Code = "SELECTION_TOO_LARGE"
	ConnectionExists        Code = "CONNECTION_EXISTS"
	// a revert asked where it cannot be made as asked (the review page's)
	RevertByPullRequest Code = "REVERT_BY_PULL_REQUEST"
	// a step the command line refuses, for it would not do what the person wants
	ModelUncommitted     Code = "MODEL_UNCOMMITTED"
	PlanAlreadyApplied   Code = "PLAN_ALREADY_APPLIED"
	PlanAppliedBefore    Code = "PLAN_APPLIED_BEFORE"
	ResubmitNotNeeded    Code = "RESUBMIT_NOT_NEEDED"
	InitInsideRepository Code = "INIT_INSIDE_REPOSITORY"
	InitCoArchi1         Code = "INIT_COARCHI1_MODEL"
	InboxPlaceUnsafe     Code = "INBOX_PLACE_UNSAFE"
	ModelPlaceUnsafe     Code = "MODEL_PLACE_UNSAFE"
)

// The codes of what the command line and the review page refuse to do with a plan of the inbox
// (approve, reject, resubmit, revert): each message starts with its code. Refusals describes each.
const (
	InboxNameTaken       Code = "INBOX_NAME_TAKEN"
	RevertNeedsApprovals Code = "REVERT_NEEDS_APPROVALS"
	PlanIsRejected       Code = "PLAN_IS_REJECTED"
	PlanIsApproved       Code = "PLAN_IS_APPROVED"
	PlanNotPreviewed     Code = "PLAN_NOT_PREVIEWED"
	PlanUnreadable       Code = "PLAN_UNREADABLE"
	PlanChangedSince     Code = "PLAN_CHANGED_SINCE_PREVIEW"
	PlanNotValid         Code = "PLAN_NOT_VALID"
	PreviewForged        Code = "PREVIEW_NOT_ARCHIPLANS"
	PreviewNotRead       Code = "PREVIEW_NOT_THE_ONE_READ"
	RevertNoSuchPlan     Code = "REVERT_NO_SUCH_PLAN"
	RevertConflict       Code = "REVERT_CONFLICT"
	RevertAlready        Code = "REVERT_ALREADY_REVERTED"
	RevertBadInverse     Code = "REVERT_BAD_INVERSE"
	RevertDirty          Code = "REVERT_WORK_TREE_DIRTY"
	RevertPolicyDeny     Code = "REVERT_POLICY_DENY"
	RevertModelInvalid   Code = "REVERT_MODEL_INVALID"
	RevertOfRevert       Code = "REVERT_OF_REVERT"
	PlanNameNotAllowed   Code = "PLAN_NAME_NOT_ALLOWED"
	PlanNotInInbox       Code = "PLAN_NOT_IN_INBOX"
	RejectPlanGone       Code = "REJECT_PLAN_GONE"
	InboxNotWritten      Code = "INBOX_NOT_WRITTEN"
	RejectNeedsReason    Code = "REJECT_NEEDS_REASON"
)

// Refusals describes the codes of the command line's and the review page's refusals: what each
// means and what to do. The reference lists them.
var Refusals = []struct {
	Code    Code
	Meaning string
}{
	{InboxNameTaken, "`approve`, `reject`, the review page: the plan's file cannot be renamed NAME.approved or NAME.rejected, because a directory (not archiplan's: a planner's) takes that name, which a rename cannot replace (a file, link or pipe there is replaced, never followed); nothing is renamed or written: see who made it, remove it, then approve or reject again. The daemon says it too of a directory where a plan's preview, report or picture goes: nothing is written, and the plan is previewed once the directory goes"},
	{RevertNeedsApprovals, "`revert`, the review page's Revert: the revert changes objects the owners (policy/owners.yaml) or an approval rule ask approvals for, as an apply of the same changes would, and the person reverting is not all of them (one approval, from the people named): one of them reverts it, or a plan that makes the same changes is approved by them"},
	{PlanIsRejected, "`approve`, the review page's Approve and Reject: the plan is NAME.rejected (its preview says why): archiplan resubmit NAME writes it under a new name and previews it"},
	{PlanIsApproved, "`approve`, the review page's Approve and Reject: the plan is NAME.approved already: a daemon applies it, or archiplan apply does now"},
	{PlanNotPreviewed, "`approve`, the review page's Approve: archiplan has not previewed the plan yet: read its preview first (archiplan validate previews it)"},
	{PlanUnreadable, "`approve`: the plan's file cannot be read as an inbox file is (a link, a pipe, too large)"},
	{PlanChangedSince, "`approve`: the plan's file holds other bytes than its preview showed: nothing is approved that was not previewed (archiplan validate previews it again)"},
	{PlanNotValid, "`approve`, the review page's Approve: the preview does not say valid: only a plan previewed valid is approved; the message says what to do (for plan bytes applied before, PLAN_ALREADY_APPLIED: revert it first, then resubmit, as the preview says)"},
	{PreviewForged, "`approve`, the review page's Approve: the preview or report on disk is not the one archiplan wrote, so what was read may be a forgery: archiplan validate writes it again; read that one"},
	{PreviewNotRead, "`approve --preview`, the review page's Approve: the preview's SHA-256 is not the one given (the page's: the preview was written again since the page was drawn): read the preview again"},
	{RevertNoSuchPlan, "`revert`, the review page's Revert: no apply commit on the branch has the plan id or commit given"},
	{RevertConflict, "`revert`, the review page's Revert: a later commit changed what the revert restores (the message names the object and the field, and the archiplan log --object ID that lists the commits that changed it): revert that first, or undo it by hand"},
	{RevertAlready, "`revert`, the review page's Revert: the plan was reverted already (the message names the commit)"},
	{RevertBadInverse, "`revert`, the review page's Revert: the inverse archived with the plan is not one archiplan wrote: it is never used"},
	{RevertDirty, "`revert`, the review page's Revert: the model file in the work tree has changes not committed: commit or discard them first"},
	{PlanNameNotAllowed, "`approve`, `reject`, `resubmit`: the NAME given is not one the inbox takes (letters, digits, '-' and '_', at most 100, starting with a letter or digit; not a path or a file's name, whose NAME the message gives): wrong usage, nothing is done"},
	{PlanNotInInbox, "`approve`, `reject`, `resubmit`, the review page's Approve and Reject of a plan applied since the page was drawn: no plan NAME in the inbox (NAME.json, NAME.approved or NAME.rejected): wrong usage, nothing is done; archiplan status lists the plans, archiplan log the applied ones (of a NAME applied, approve, reject and the page name the plan id and the commit it was applied in)"},
	{RejectPlanGone, "`reject`: the plan's file left the inbox while it was being rejected (a daemon applied it, or its planner removed it): nothing was rejected; archiplan status and archiplan log say where it is"},
	{InboxNotWritten, "`reject`: the rejection could not be written in the inbox or in archiplan's record under .git/ (permissions, a full disk): the message says which file; repair it, then reject again"},
	{RejectNeedsReason, "the review page's Reject: a rejection from the page needs a reason, shown on top of the plan's preview (the command line's `reject` writes \"rejected by NAME\" when none is given): write one, then reject again"},
	{RevertModelInvalid, "`revert`, the review page's Revert, a revert's pull request: the model the revert would write cannot be read back, or Archi could not open it (the message says why: an element removed that a later plan put on a view, say); nothing is committed: revert the later plan first, or undo it by hand"},
	{RevertOfRevert, "`revert`, the review page's Revert: the commit given is the revert of a plan, not an apply: a revert is not reverted (applying a plan again is an apply, previewed and approved like any); the message gives the step that submits the plan again as a new plan, from its archive in the revert's parent (docs/revert.md)"},
	{RevertPolicyDeny, "`revert`, the review page's Revert, a revert's pull request: the static policy (.archiplan.yaml's allowed element and relationship types, protected folders: the message names POLICY_TYPE_NOT_ALLOWED or POLICY_PROTECTED_FOLDER) or a deny rule of the workspace's policy (policy/*.rego) refuses what the revert puts back or changes, as it would refuse a plan making the same changes (the message names each rule and its fix; a finding the model already had before the revert does not count); nothing is committed: undo it by a plan the rules accept, or change the rule"},
}

// Codes describes every code: what it means and how a planner fixes it. The README lists them.
var Codes = []struct {
	Code     Code
	Severity Severity
	Meaning  string
}{
	{ExtractEmpty, Error, "the plan file is empty"},
	{ExtractNoJSON, Error, "no JSON object in what was written (a prose answer): write the plan as one JSON object"},
	{ExtractTruncated, Error, "a JSON object starts but never ends (a cut-off answer)"},
	{ExtractInvalidJSON, Error, "the JSON object is not valid JSON; the message says where"},
	{ExtractNotObject, Error, "the JSON is an array, string or number, not an object"},
	{ExtractStrict, Error, "strict mode: the file must be a bare JSON object, without fences or prose"},
	{ExtractDuplicateKey, Error, "an object names the same key twice; which one counts would be a guess"},
	{ExtractTooLarge, Error, "the plan file is larger than 1 MiB"},
	{ExtractTooDeep, Error, "the JSON nests deeper than 32 levels"},
	{ExtractNotRegular, Error, "the plan is a symbolic link, a folder or a special file, which archiplan never follows or reads"},
	{ExtractFenceStripped, Warning, "markdown code fences around the object were stripped"},
	{ExtractProseStripped, Warning, "text before or after the object was stripped"},
	{ExtractBOMStripped, Warning, "a byte order mark was stripped"},
	{ExtractSeveral, Warning, "several JSON objects were written; the last complete one was taken"},
	{ExtractInvalidUTF8, Error, "the plan is not UTF-8 (bytes that are not, or an escaped lone surrogate such as \\ud800); the message says where: write it as UTF-8"},
	{ExtractDoubleBOM, Error, "more than one byte order mark precedes the object"},
	{ExtractTooManyActions, Error, "more than 500 actions (counted while the JSON is read, before any other check): split the plan"},
	{ExtractTooManyItems, Error, "an array or object holds more than 1000 members, or the plan more than 20,000 values in all (counted while the JSON is read)"},
	{ExtractStringTooLong, Error, "a string or key is longer than 64 KiB (measured while the JSON is read)"},
	{SchemaVersionMissing, Error, "schema_version is missing: write \"" + schemas.Latest + "\""},
	{SchemaVersionUnknown, Error, "schema_version is not one archiplan knows (" + strings.Join(schemas.Versions, ", ") + ")"},
	{SchemaLegacyField, Error, "a field of an older or foreign plan shape (version, changes, operations, action, ...): use the fields of the schema"},
	{SchemaUnknownField, Error, "a field the schema does not have; the pointer names it"},
	{SchemaMissingField, Error, "a required field is missing"},
	{SchemaWrongType, Error, "a field has the wrong JSON type"},
	{SchemaBadValue, Error, "a value is not one of those allowed (status, element or relationship type)"},
	{SchemaTooLong, Error, "a string or list is longer than the schema allows"},
	{SchemaTooShort, Error, "a string is empty where a value is needed"},
	{SchemaUnknownOp, Error, "an action's op is not one archiplan knows"},
	{SchemaOpNotInVersion, Error, "the op exists only in a later schema_version: write the version the message names"},
	{SchemaInvalid, Error, "another schema violation; the message says which"},
	{SchemaXYIncomplete, Error, "x without y, or y without x: give both, or neither to let archiplan place the object"},
	{SchemaTypeNotInVer, Error, "the type exists only in a later schema_version (Junction: write \"2.0\")"},
	{RefNotFound, Error, "an id is neither in the model nor a ref_id declared earlier in the plan"},
	{RefWrongKind, Error, "an id names an object of the wrong kind (a view where an element is needed, ...)"},
	{RefDeleted, Error, "an id names an object an earlier action deletes (also by cascade)"},
	{RefBeforeDeclared, Error, "a ref_id is used before the action that declares it"},
	{RefFailed, Error, "a ref_id names what a failed action would have created"},
	{RefIDDuplicate, Error, "a ref_id is declared twice, or equals an id in the model"},
	{RelNotAllowed, Error, "the ArchiMate 3.2 relationship table does not allow this relationship between these types (the message lists those it allows), or a junction rule is broken"},
	{Conflict, Error, "two actions set the same thing differently (two renames of one element, ...)"},
	{FolderWrongLayer, Error, "the folder path is not under the layer folder the object belongs in"},
	{FolderPathInvalid, Error, "a folder path has a \".\" or \"..\" part, or an empty one (\"a//b\"): name each folder"},
	{TextInvalid, Error, "a name or value holds characters XML cannot carry (control characters)"},
	{ViewNotArchimate, Error, "the view is a sketch or canvas, which cannot show ArchiMate elements"},
	{StatusNotReady, Error, "only a plan with status ready can be applied"},
	{NoOp, Warning, "the action changes nothing (rename to the same name, ...)"},
	{DuplicateOnView, Warning, "the element is already on the view; it will appear twice"},
	{DuplicateRel, Warning, "the same relationship between the same ends already exists (same type, and for Access the same access type, for Influence the same strength)"},
	{NoActions, Warning, "a ready plan with no actions"},
	{NothingToApply, Error, "a ready plan whose actions change nothing in the model (each one a NOOP, or none at all): approving it would commit nothing, so it cannot be approved"},
	{QuestionsMissing, Warning, "needs_clarification without questions"},
	{ActionsIgnored, Warning, "a plan that is not ready carries actions; they are shown but never applied"},
	{PlannerWarning, Warning, "a warning the planner wrote into the plan"},
	{ModelProblem, Warning, "the model itself has a problem (duplicate ids) that Archi would refuse"},
	{ModelInvalid, Error, "the model at HEAD is one Archi cannot open (missing or duplicate ids, unknown types, dangling references; the message names them): no plan is applied to it until it is repaired"},
	{PlanChangedAfterPreview, Error, "the plan file changed after its NAME was previewed valid: a NAME's plan bytes are fixed at that preview, so no approval can reach bytes the person did not read; archiplan resubmit NAME submits them under a new name"},
	{PlanWordsChanged, Error, "previewed again (HEAD or the policy moved), the plan would make changes that read otherwise than its first valid preview said: the approval is stale; archiplan resubmit NAME submits it under a new name, where it is previewed afresh"},
	{PolicyVerdictChanged, Error, "an approval's apply judged the workspace's rules (policy/*.rego) again and they said otherwise than the preview approved (a rule reading the time, time.now_ns, or another builtin whose answer changes: a change freeze began, a deny or warning came or went): nothing is applied against a verdict the person did not read; the approval is withdrawn (NAME.json again) and the plan previewed again, to be read and approved anew"},
	{PolicyOpNotAllowed, Error, "the workspace's policy does not allow this op"},
	{PolicyTypeNotAllowed, Error, "the workspace's policy does not allow this element or relationship type"},
	{PolicyProtected, Error, "the object lies in a folder the policy protects"},
	{PolicyOutOfScope, Error, "the id is outside the scope of the plan's NAME.context.json"},
	{SchemaOpLaterVersion, Warning, "a 1.0 plan uses a 2.0 op; accepted with its 2.0 meaning, as jArchi's runtime does (write \"2.0\" to silence it)"},
	{TextBlank, Error, "a summary, name, new_name or property key is only spaces: write a value"},
	{DuplicateName, Warning, "create_element or create_view makes a second object with the name and type of an existing one, or one that reads alike (on_duplicate says what to do instead); rename_element gives an element such a name, or one that reads like its old name"},
	{DuplicateRefused, Error, "on_duplicate is error and the object exists already: drop the action or use reuse"},
	{FieldNotForType, Error, "access_type is only for Access, influence_strength only for Influence, directed only for Association relationships"},
	{ConnectionNotAllowed, Error, "a connection cannot be drawn: the objects do not show the relationship's ends, a plain connection touches no note or group, or nothing is left to draw"},
	{StyleInvalid, Error, "a colour is not #rrggbb, or the style does not apply to the object (a connection has no fill)"},
	{MergeNotAllowed, Error, "merge_elements needs two different elements of the same type"},
	{ConnectionExists, Warning, "add_connection_to_view: the objects are joined already by a connection for this relationship; nothing is drawn and the ref_id names the connection there"},
	{RevertByPullRequest, Error, "the review page's Revert, where the workspace delivers by pull request (deliver: pull-request): a revert is a pull request too, reviewed and approved on the forge as an apply is; archiplan revert PLAN-ID opens it"},
	{SelectionTooLarge, Error, "create_view's selection (with its neighbours) holds more than 300 elements: select fewer, or a smaller depth"},
	{PlanAlreadyApplied, Error, "a preview, an apply or approval: these very plan bytes were applied in a commit on the branch, and a later commit removed their record under .archiplan/applied/ without undoing their changes (a revert, archiplan's or git's, undoes them; the models decide, not what the commit says): the plan is previewed invalid and refused, not applied twice; the message names both commits and the step (revert it first, then resubmit)"},
	{PlanAppliedBefore, Warning, "a preview: these very plan bytes were applied in a commit on the branch and not reverted since (the models decide): approving them applies nothing, so `approve` and the review page refuse it with this code (the page offers no Approve), and a rename by hand applies nothing (the apply says so, exit 0, and clears the inbox); the message names the commit and the plan id and the step: archiplan reject NAME takes it out of the inbox; to make its changes again, revert it first (archiplan revert PLAN-ID), then resubmit"},
	{ModelUncommitted, Error, "the model file has changes not committed (a save from Archi): an apply would reject the plan, so approve (and the review page's Approve) refuses, status says so, and an apply rejects it; commit the save (git commit -am MESSAGE) or discard it (git checkout -- MODEL), then approve (a rejected plan: archiplan resubmit NAME first)"},
	{ResubmitNotNeeded, Error, "archiplan resubmit NAME of a plan previewed valid against HEAD and waiting for approval: resubmit is for rejected or stale plans; archiplan approve NAME approves it as it is"},
	{InitCoArchi1, Error, "archiplan init in a folder that keeps its model in coArchi 1's form (model/folder.xml, a file for each object, as coArchi 1 commits it) and has no .archimate file: archiplan reads one .archimate file (coArchi 2's model.archimate, or any Archi saved); save the model from Archi as one file (File > Save As), then archiplan init --model FILE; nothing is written (exit 3)"},
	{InitInsideRepository, Error, "archiplan init without DIR in a folder inside a git repository: a workspace is a whole repository; run archiplan init at the repository's root to make it the workspace (it finds the model in a folder), or archiplan init NEWDIR for a repository of its own"},
	{InboxPlaceUnsafe, Error, "a command in a workspace whose configuration puts the inbox where planners would write what archiplan trusts: .git, .archiplan (the archive), hooks, policy, .archiplan.yaml or the model, or a folder holding one of them, by name or through a link (a pull that sets it, or puts a link where it would be, is refused, REMOTE_COMMIT_REFUSED); nothing is read or written: set inbox to a folder of its own (the default, plans)"},
	{ModelPlaceUnsafe, Error, "a command in a workspace whose configuration (or init's model found or named) puts the model where archiplan keeps what it trusts: .git (or any folder named .git), .archiplan (the archive), hooks, policy or .archiplan.yaml, or a folder holding one of them; each apply would write the model, whose text plans fill, there (a pull that sets it is refused, REMOTE_COMMIT_REFUSED); nothing is read or written: move the model out (git mv) and set model to its path (the default, model.archimate)"},
}

func severityOf(c Code) Severity {
	for _, d := range Codes {
		if d.Code == c {
			return d.Severity
		}
	}
	return Error
}

func newFinding(c Code, action int, pointer, snippet, format string, args ...any) Finding {
	f := Finding{Severity: severityOf(c), Code: c, Message: words(format, args...), Pointer: pointer,
		Snippet: clip(snippet, 120)}
	if action >= 0 {
		a := action
		f.Action = &a
	}
	return f
}

func actionPointer(i int, field string) string {
	p := "/actions/" + strconv.Itoa(i)
	if field != "" {
		p += "/" + field
	}
	return p
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Clip shortens s to at most n runes, marking the cut, as findings do (for the planning context).
func Clip(s string, n int) string { return clip(s, n) }

// sortFindings orders findings as reports show them, the same every run: those of the plan as a
// whole first, then by action, pointer and code; findings equal in all three keep their order.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		ai, bi := -1, -1
		if a.Action != nil {
			ai = *a.Action
		}
		if b.Action != nil {
			bi = *b.Action
		}
		if ai != bi {
			return ai < bi
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Code < b.Code
	})
}

// Findings splits findings into errors and warnings.
func split(fs []Finding) (errs, warns []Finding) {
	for _, f := range fs {
		if f.Severity == Warning {
			warns = append(warns, f)
		} else {
			errs = append(errs, f)
		}
	}
	return errs, warns
}

// words is fmt.Sprintf for the sentences of a report and a preview (messages, what an action
// does): a text quoted with %q is quoted as hidden.Quote quotes it ("Desk\u{e0041}"), and no
// character a person cannot see passes through another verb either (hidden.Show): the one way
// such a character is shown, in the preview, the report and the pictures alike.
func words(format string, args ...any) string {
	shown := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(string); ok {
			a = quotable(s)
		}
		shown[i] = a
	}
	return hidden.Show(fmt.Sprintf(format, shown...))
}

// quotable is a text words formats: %q quotes it with hidden.Quote, other verbs as a string.
type quotable string

func (q quotable) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		io.WriteString(f, hidden.Quote(string(q)))
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), string(q))
}
