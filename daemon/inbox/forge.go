package inbox

import "strings"

// ForgeApproval is an approval given on a forge: a review of the plan's pull request, by an
// account the forge authenticated, on the head archiplan previewed.
type ForgeApproval struct {
	Kind    string `json:"kind"`    // gitea, github, gitlab
	Host    string `json:"host"`    // the forge's host
	Account string `json:"account"` // who approved, as the forge names them
	PR      int    `json:"pr"`      // the pull request's number
	Head    string `json:"head"`    // the commit the review approved
}

// ApproveByForge approves NAME as a forge review did: the record keeps the review (its account
// becomes the apply's Approved-By) and the owners' approvals count the account; the preview must
// still be previewSHA, as for any approval.
func (b *Inbox) ApproveByForge(name, previewSHA string, f ForgeApproval) error {
	return b.Steady(func() error {
		rec, err := b.Record(name)
		if err != nil {
			return err
		}
		f.Account = strings.Join(strings.Fields(strings.NewReplacer("<", "", ">", "").Replace(f.Account)), " ")
		if len(f.Account) > 100 {
			f.Account = f.Account[:100]
		}
		rec.Forge = &f
		if err := b.writeRecord(rec); err != nil {
			return err
		}
		if err := b.approveSeen(name, previewSHA, "", f.Account); err != nil {
			// not approved: no forge account is left to stand for an approval
			if now, rerr := b.Record(name); rerr == nil && now.Forge != nil {
				now.Forge = nil
				_ = b.writeRecord(now)
			}
			return err
		}
		return nil
	})
}
