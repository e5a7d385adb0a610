// Entry: see entry_linux_amd64.go. It runs before the Go runtime, as the
// process's only thread, using only system calls and the words of
// entryWords; it never touches the stack.

#include "textflag.h"

// Offsets in entryWords.
#define RAN 0
#define STAGE 8
#define ERRNO 16
#define BUF 24
#define PIPE 32
#define PID 40
#define STATUS 48

// A system call's result in AX is an error when it lies in [-4095, -1].
#define ERRMAX $0xfffffffffffff000

TEXT ·Entry(SB),NOSPLIT|NOFRAME,$0
	// Only a helper started with the marker as argv[2] unshares.
	MOVQ	0(SP), AX
	CMPQ	AX, $3
	JLT	start
	MOVQ	24(SP), SI
	LEAQ	·entryMarker(SB), DI
compare:
	MOVBLZX	(SI), AX
	MOVBLZX	(DI), BX
	CMPL	AX, BX
	JNE	start
	TESTL	AX, AX
	JEQ	matched
	INCQ	SI
	INCQ	DI
	JMP	compare

matched:
	MOVQ	$1, ·entryWords+RAN(SB)

	// unshare(the namespaces)
	MOVQ	·entryFlags(SB), DI
	MOVQ	$272, AX
	SYSCALL
	MOVQ	$1, R12
	CMPQ	AX, ERRMAX
	JHI	fail

	// write(4, "u", 1): the parent writes the id maps on it.
	MOVQ	$0x75, ·entryWords+BUF(SB)
	MOVQ	$4, DI
	LEAQ	·entryWords+BUF(SB), SI
	MOVQ	$1, DX
	MOVQ	$1, AX
	SYSCALL
	MOVQ	$2, R12
	CMPQ	AX, $1
	JNE	fail

	// read(4, buf, 1) must be "m": the maps are written.
	MOVQ	$0, ·entryWords+BUF(SB)
	MOVQ	$4, DI
	LEAQ	·entryWords+BUF(SB), SI
	MOVQ	$1, DX
	MOVQ	$0, AX
	SYSCALL
	MOVQ	$3, R12
	CMPQ	AX, $1
	JNE	fail
	MOVQ	·entryWords+BUF(SB), AX
	CMPQ	AX, $0x6d
	JNE	failnoerr

	// pipe2(pipe, O_CLOEXEC): the child waits on it until this process
	// has told the parent the child's pid.
	LEAQ	·entryWords+PIPE(SB), DI
	MOVQ	$0x80000, SI
	MOVQ	$293, AX
	SYSCALL
	MOVQ	$4, R12
	CMPQ	AX, ERRMAX
	JHI	fail

	// fork: the child is the first process of the new PID namespace.
	MOVQ	$17, DI		// SIGCHLD
	XORQ	SI, SI
	XORQ	DX, DX
	XORQ	R10, R10
	XORQ	R8, R8
	MOVQ	$56, AX		// clone
	SYSCALL
	MOVQ	$5, R12
	CMPQ	AX, ERRMAX
	JHI	fail
	TESTQ	AX, AX
	JNE	relay

	// The child: close the pipe's write end, wait for the byte.
	MOVLQZX	·entryWords+PIPE+4(SB), DI
	MOVQ	$3, AX
	SYSCALL
	MOVLQZX	·entryWords+PIPE(SB), DI
	LEAQ	·entryWords+BUF(SB), SI
	MOVQ	$1, DX
	MOVQ	$0, AX
	SYSCALL
	MOVQ	$6, R12
	CMPQ	AX, $1
	JNE	fail
	MOVLQZX	·entryWords+PIPE(SB), DI
	MOVQ	$3, AX
	SYSCALL

	// setgroups(0, NULL): refused where setgroups is denied (the parent
	// is not root); the helper checks the groups it is left with.
	XORQ	DI, DI
	XORQ	SI, SI
	MOVQ	$116, AX
	SYSCALL

	// setresgid(0, 0, 0), setresuid(0, 0, 0)
	XORQ	DI, DI
	XORQ	SI, SI
	XORQ	DX, DX
	MOVQ	$119, AX
	SYSCALL
	MOVQ	$8, R12
	CMPQ	AX, ERRMAX
	JHI	fail
	XORQ	DI, DI
	XORQ	SI, SI
	XORQ	DX, DX
	MOVQ	$117, AX
	SYSCALL
	MOVQ	$9, R12
	CMPQ	AX, ERRMAX
	JHI	fail

	// prctl(PR_SET_PDEATHSIG, SIGKILL): die with the relay. After the
	// ids change, which would clear it.
	MOVQ	$1, DI
	MOVQ	$9, SI
	MOVQ	$157, AX
	SYSCALL
	MOVQ	$7, R12
	CMPQ	AX, ERRMAX
	JHI	fail

	// The helper never starts the runtime: rawMain runs as Go code
	// that calls nothing of it, with a g of its own whose stack guard
	// no stack is below, found where Go code looks for g, at -8(FS).
	// arch_prctl(ARCH_SET_FS, &rawTLS[1])
	LEAQ	·rawG(SB), AX
	MOVQ	AX, ·rawTLS(SB)
	MOVQ	$0x1002, DI
	LEAQ	·rawTLS+8(SB), SI
	MOVQ	$158, AX
	SYSCALL
	MOVQ	$10, R12
	CMPQ	AX, ERRMAX
	JHI	fail
	CALL	·rawMain(SB)
	MOVQ	$126, DI
	MOVQ	$231, AX	// exit_group
	SYSCALL

relay:
	// Tell the parent the child's pid, then let the child go on.
	MOVQ	AX, R13
	MOVL	AX, ·entryWords+PID(SB)
	MOVQ	$4, DI
	LEAQ	·entryWords+PID(SB), SI
	MOVQ	$4, DX
	MOVQ	$1, AX
	SYSCALL
	MOVLQZX	·entryWords+PIPE(SB), DI
	MOVQ	$3, AX
	SYSCALL
	MOVLQZX	·entryWords+PIPE+4(SB), DI
	LEAQ	·entryWords+BUF(SB), SI
	MOVQ	$1, DX
	MOVQ	$1, AX
	SYSCALL
	MOVLQZX	·entryWords+PIPE+4(SB), DI
	MOVQ	$3, AX
	SYSCALL
	// Hold nothing the parent waits on: streams, executable, socket.
	XORQ	BX, BX
closeall:
	MOVQ	BX, DI
	MOVQ	$3, AX
	SYSCALL
	INCQ	BX
	CMPQ	BX, $5
	JLT	closeall

reap:
	MOVQ	R13, DI
	LEAQ	·entryWords+STATUS(SB), SI
	XORQ	DX, DX
	XORQ	R10, R10
	MOVQ	$61, AX		// wait4
	SYSCALL
	CMPQ	AX, R13
	JEQ	reaped
	CMPQ	AX, $-4		// EINTR
	JEQ	reap
	MOVQ	$126, DI
	JMP	exit
reaped:
	// The child's exit status, or 128 and its signal, as a shell says.
	MOVL	·entryWords+STATUS(SB), AX
	MOVL	AX, BX
	ANDL	$0x7f, BX
	JNE	signaled
	SHRL	$8, AX
	ANDL	$0xff, AX
	MOVQ	AX, DI
	JMP	exit
signaled:
	ADDL	$128, BX
	MOVQ	BX, DI
exit:
	MOVQ	$231, AX	// exit_group
	SYSCALL
	JMP	exit

failnoerr:
	XORQ	AX, AX
fail:
	MOVQ	R12, ·entryWords+STAGE(SB)
	NEGQ	AX
	MOVQ	AX, ·entryWords+ERRNO(SB)
start:
	JMP	_rt0_amd64_linux(SB)

// func rawSyscall6(nr, a0, a1, a2, a3, a4, a5 uintptr) uintptr
TEXT ·rawSyscall6(SB),NOSPLIT,$0-64
	MOVQ	nr+0(FP), AX
	MOVQ	a0+8(FP), DI
	MOVQ	a1+16(FP), SI
	MOVQ	a2+24(FP), DX
	MOVQ	a3+32(FP), R10
	MOVQ	a4+40(FP), R8
	MOVQ	a5+48(FP), R9
	SYSCALL
	MOVQ	AX, ret+56(FP)
	RET
