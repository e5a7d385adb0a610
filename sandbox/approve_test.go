package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDecisionZeroIsDeny(t *testing.T) {
	var d Decision
	if d != Deny {
		t.Fatalf("zero Decision is %v, want Deny", d)
	}
}

func TestApproverFromContextDefaultsToDenyAll(t *testing.T) {
	a := ApproverFromContext(context.Background())
	d, err := Ask(context.Background(), a, &ApprovalRequest{Command: "ls"})
	if d != Deny || !errors.Is(err, ErrNoApprover) {
		t.Fatalf("no approver installed: got %v, %v; want Deny, ErrNoApprover", d, err)
	}
	if d, _ := Ask(context.Background(), ApproverFromContext(WithApprover(context.Background(), nil)), &ApprovalRequest{}); d != Deny {
		t.Fatalf("WithApprover(nil) allowed")
	}
}

func TestAskFailuresDeny(t *testing.T) {
	allow := ApproverFunc(func(context.Context, *ApprovalRequest) (Decision, error) { return Allow, nil })
	expired, cancel := context.WithDeadline(context.Background(), time.Unix(1, 0))
	defer cancel()
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	slowThenCancel := ApproverFunc(func(ctx context.Context, _ *ApprovalRequest) (Decision, error) {
		<-ctx.Done()
		return Allow, nil // answered too late
	})
	for _, tt := range []struct {
		name string
		ctx  context.Context
		a    Approver
		want Decision
	}{
		{"explicit allow", context.Background(), allow, Allow},
		{"session allow", context.Background(), ApproverFunc(func(context.Context, *ApprovalRequest) (Decision, error) { return AllowSession, nil }), AllowSession},
		{"explicit deny", context.Background(), ApproverFunc(func(context.Context, *ApprovalRequest) (Decision, error) { return Deny, nil }), Deny},
		{"approver errors even with allow", context.Background(), ApproverFunc(func(context.Context, *ApprovalRequest) (Decision, error) { return Allow, errors.New("EOF") }), Deny},
		{"unknown decision", context.Background(), ApproverFunc(func(context.Context, *ApprovalRequest) (Decision, error) { return Decision(42), nil }), Deny},
		{"deadline passed before asking", expired, allow, Deny},
		{"ctrl-c before asking", canceled, allow, Deny},
		{"answer after deadline", func() context.Context {
			c, cl := context.WithTimeout(context.Background(), 10*time.Millisecond)
			t.Cleanup(cl)
			return c
		}(), slowThenCancel, Deny},
		{"nil approver", context.Background(), nil, Deny},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := Ask(tt.ctx, tt.a, &ApprovalRequest{Command: "ls", Dir: "/ws"})
			if got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
