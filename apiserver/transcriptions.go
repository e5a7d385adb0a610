package apiserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// maxFormField caps a non-file multipart field (model, language, prompt,
// response_format, temperature).
const maxFormField = 4 << 10

// maxFormOverhead is what a multipart body may carry beyond the audio:
// boundaries, part headers and the small fields.
const maxFormOverhead = 64 << 10

func (s *Server) transcriptions(w http.ResponseWriter, r *http.Request) {
	if s.transcriber == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", withHint("speech to text is not configured", s.setup.Transcriber))
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "send the audio as multipart/form-data with a file field")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxAudioBytes+maxFormOverhead)
	// MultipartReader streams the parts; ParseMultipartForm would spill a
	// large upload to temporary files, handing any caller a disk filler.
	mr, err := r.MultipartReader()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "reading the multipart body: "+err.Error())
		return
	}
	var audio *Audio
	format := "json"
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			uploadError(w, err)
			return
		}
		switch part.FormName() {
		case "file":
			if audio != nil {
				writeError(w, http.StatusBadRequest, "invalid_request_error", "more than one file field")
				return
			}
			// Read one byte past the cap so an over-limit file is told
			// apart from one that is exactly at it.
			data, err := io.ReadAll(io.LimitReader(part, MaxAudioBytes+1))
			if err != nil {
				uploadError(w, err)
				return
			}
			if len(data) > MaxAudioBytes {
				writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error",
					fmt.Sprintf("the audio file is over the %d MiB limit", MaxAudioBytes>>20))
				return
			}
			audio = &Audio{Data: data, Filename: part.FileName()}
		case "response_format":
			v, err := io.ReadAll(io.LimitReader(part, maxFormField))
			if err != nil {
				uploadError(w, err)
				return
			}
			format = strings.TrimSpace(string(v))
		default:
			// model, language, prompt and temperature are accepted for
			// compatibility and ignored; the model comes from stt.model.
			if _, err := io.Copy(io.Discard, io.LimitReader(part, maxFormField)); err != nil {
				uploadError(w, err)
				return
			}
		}
	}
	if format != "json" && format != "text" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("response_format %q is not supported: use json or text", format))
		return
	}
	if audio == nil || len(audio.Data) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "no audio: send the recording in a multipart field named file")
		return
	}
	audio.Format = sniffAudio(audio.Data)
	if audio.Format == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error",
			"the file is not audio joshbot recognises (flac, mp3, mp4/m4a, ogg, wav or webm), whatever its name or declared type says")
		return
	}
	text, err := s.transcriber.Transcribe(r.Context(), audio)
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		status, msg := s.failure(r, "the transcription", err)
		writeError(w, status, errorType(status), msg)
		return
	}
	if format == "text" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, text)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"text": text})
}

func uploadError(w http.ResponseWriter, err error) {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error",
			fmt.Sprintf("the upload is over the %d MiB limit", MaxAudioBytes>>20))
		return
	}
	writeError(w, http.StatusBadRequest, "invalid_request_error", "reading the upload: "+err.Error())
}

// sniffAudio names the container of data from its first bytes, or returns
// "" when it is none of the formats the transcription endpoints take.
func sniffAudio(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("fLaC")):
		return "flac"
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WAVE")):
		return "wav"
	case bytes.HasPrefix(data, []byte("OggS")):
		return "ogg"
	case bytes.HasPrefix(data, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return "webm"
	case len(data) >= 12 && bytes.Equal(data[4:8], []byte("ftyp")):
		return "mp4"
	case bytes.HasPrefix(data, []byte("ID3")):
		return "mp3"
	case len(data) >= 2 && data[0] == 0xFF && data[1]&0xE0 == 0xE0 && data[1]&0x06 != 0:
		// An MPEG audio frame sync with a layer set (not an AAC ADTS
		// header, whose layer bits are zero).
		return "mp3"
	}
	return ""
}
