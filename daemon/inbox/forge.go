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
		f.Account = ForgeAccount(f.Account)
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

// ForgeAccount is a forge's name of an account as an approval records it: one line, no angle
// brackets (it stands in a signature's name and email), at most 100 bytes.
func ForgeAccount(s string) string {
	s = strings.Join(strings.Fields(strings.NewReplacer("<", "", ">", "").Replace(s)), " ")
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}
