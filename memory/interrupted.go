package memory

// KindInterrupted is the Message.Kind of an assistant answer that did not
// finish. Its Content is either [InterruptedText], standing in for an
// answer that was never saved (the process killed, the machine stopped
// after the user's message was stored), or the part of the answer that
// was shown before the user stopped it (Ctrl-C, a Stop button).
const KindInterrupted = "interrupted"

// InterruptedText is the content of a [KindInterrupted] message. It is
// sent to the model like any answer, which tells it that the question
// before it went unanswered.
const InterruptedText = "(interrupted: no answer was saved)"

// MarkInterrupted returns msgs with a [KindInterrupted] assistant message
// inserted after every ordinary user message that is directly followed by
// another ordinary user message, the mark a cut-off turn leaves, so the
// session alternates again; and how many it inserted. Each marker takes
// the time of the message it answers. msgs itself is returned when there
// is nothing to mark.
func MarkInterrupted(msgs []Message) ([]Message, int) {
	n := 0
	for i := 0; i+1 < len(msgs); i++ {
		if cutOff(msgs, i) {
			n++
		}
	}
	if n == 0 {
		return msgs, 0
	}
	out := make([]Message, 0, len(msgs)+n)
	for i := range msgs {
		out = append(out, msgs[i])
		if i+1 < len(msgs) && cutOff(msgs, i) {
			out = append(out, Message{Role: "assistant", Kind: KindInterrupted, Content: InterruptedText, Time: msgs[i].Time})
		}
	}
	return out, n
}

// cutOff reports whether msgs[i] and msgs[i+1] are both ordinary user
// messages.
func cutOff(msgs []Message, i int) bool {
	return msgs[i].Role == "user" && msgs[i].Kind == "" && msgs[i+1].Role == "user" && msgs[i+1].Kind == ""
}
