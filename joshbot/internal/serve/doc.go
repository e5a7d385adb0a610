// Package serve is joshbot's HTTP adapter: it implements the apiserver
// module's interfaces (Agent, Transcriber, Embedder, transcripts) over a
// [runtime.Runtime] and serves them until stopped.
//
// # Quick start
//
//	rt, err := runtime.Load(ctx, &runtime.Options{..., WrapTools: runtime.ProgressTools})
//	if err != nil { ... }
//	defer rt.Close()
//	srv, err := serve.New(rt, &serve.Options{Stdout: os.Stdout})
//	if err != nil { ... }
//	err = srv.Run(ctx)
package serve
