package memory

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

var (
	stopWordsOnce sync.Once
	stopWordsVal  map[string]bool
)

// stopWords are left out of TF-IDF vectors and search terms: they say
// nothing about a topic, and "user"/"assistant" label every turn excerpt.
func stopWords() map[string]bool {
	stopWordsOnce.Do(func() { stopWordsVal = buildStopWords() })
	return stopWordsVal
}

func buildStopWords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by can could did do does for from had has have he her
	his how i if in into is it its me my no not of on or our she so than that the their them then there these they
	this to us was we were what when where which who why will with would you your user assistant ok yes just about
	also been being i'm it's don't can't let's get got one all any some more`) {
		m[w] = true
	}
	return m
}

// tokens calls fn with each word of s: a run of letters and digits,
// lowercased, at least two bytes long and not a stop word. buf is scratch
// space reused across calls; the string passed to fn is only valid during
// the call unless copied. It reads s only during the call, so a caller
// with bytes passes a view of them (one function in the binary, not one
// per type).
func tokens(s string, buf []byte, fn func(tok []byte)) []byte {
	buf = buf[:0]
	stop := stopWords()
	flush := func() {
		if len(buf) >= 2 && !stop[string(buf)] {
			fn(buf)
		}
		buf = buf[:0]
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				buf = append(buf, c)
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+('a'-'A'))
			default:
				flush()
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		} else {
			flush()
		}
		i += n
	}
	flush()
	return buf
}

// vec is a sparse vector: term ids in increasing order with their weights.
type vec struct {
	ids []int32
	w   []float64
}

// tfidfModel is a TF-IDF embedding fitted on a set of documents.
type tfidfModel struct {
	vocab map[string]int32
	terms []string
	df    []int
	n     int
}

// fitTFIDF fits a model on docs and returns each document's L2-normalized
// vector (sublinear term frequency times smoothed inverse document
// frequency).
func fitTFIDF(docs []string) (*tfidfModel, []vec) {
	m := &tfidfModel{vocab: map[string]int32{}, n: len(docs)}
	counts := make([]map[int32]int, len(docs))
	var buf []byte
	for i, d := range docs {
		c := map[int32]int{}
		buf = tokens(d, buf, func(tok []byte) {
			id, ok := m.vocab[string(tok)]
			if !ok {
				id = int32(len(m.terms))
				s := string(tok)
				m.vocab[s] = id
				m.terms = append(m.terms, s)
				m.df = append(m.df, 0)
			}
			if c[id] == 0 {
				m.df[id]++
			}
			c[id]++
		})
		counts[i] = c
	}
	vecs := make([]vec, len(docs))
	for i, c := range counts {
		v := vec{ids: make([]int32, 0, len(c))}
		for id := range c {
			v.ids = append(v.ids, id)
		}
		slices.Sort(v.ids)
		v.w = make([]float64, len(v.ids))
		var norm float64
		for j, id := range v.ids {
			w := (1 + math.Log(float64(c[id]))) * m.idf(id)
			v.w[j] = w
			norm += w * w
		}
		if norm > 0 {
			norm = math.Sqrt(norm)
			for j := range v.w {
				v.w[j] /= norm
			}
		}
		vecs[i] = v
	}
	return m, vecs
}

func (m *tfidfModel) idf(id int32) float64 {
	return math.Log(float64(1+m.n)/float64(1+m.df[id])) + 1
}

// cluster is a group of documents with the sum of their vectors.
type cluster struct {
	sum     map[int32]float64
	norm2   float64 // squared norm of sum
	members []int
}

// clusterVectors groups vecs (unit vectors) by leader clustering: each
// vector joins the cluster whose centroid it is most similar to, if the
// cosine similarity reaches threshold, and otherwise starts a new one.
// Candidate clusters are found through an inverted index on each vector's
// strongest terms, so a vector is compared only with clusters that share
// one of them, not with every cluster.
func clusterVectors(vecs []vec, idx []int, threshold float64) []*cluster {
	var clusters []*cluster
	inv := map[int32][]int{}
	seen := map[int]bool{}
	var cands []int
	for _, i := range idx {
		v := vecs[i]
		if len(v.ids) == 0 {
			continue
		}
		clear(seen)
		cands = cands[:0]
		for _, t := range topTerms(v, 8) {
			for _, c := range inv[t] {
				if !seen[c] {
					seen[c] = true
					cands = append(cands, c)
				}
			}
		}
		// Sorted candidates make ties, and so the result, deterministic.
		slices.Sort(cands)
		best, bestCos, bestDot := -1, threshold, 0.0
		for _, c := range cands {
			cl := clusters[c]
			var d float64
			for j, id := range v.ids {
				d += v.w[j] * cl.sum[id]
			}
			if cos := d / math.Sqrt(cl.norm2); cos > bestCos || (best < 0 && cos >= bestCos) {
				best, bestCos, bestDot = c, cos, d
			}
		}
		if best < 0 {
			best = len(clusters)
			clusters = append(clusters, &cluster{sum: map[int32]float64{}})
		}
		cl := clusters[best]
		for j, id := range v.ids {
			if _, ok := cl.sum[id]; !ok {
				inv[id] = append(inv[id], best)
			}
			cl.sum[id] += v.w[j]
		}
		cl.norm2 += 2*bestDot + 1
		cl.members = append(cl.members, i)
	}
	return clusters
}

// topTerms returns the ids of v's n heaviest terms.
func topTerms(v vec, n int) []int32 {
	if len(v.ids) <= n {
		return v.ids
	}
	order := make([]int, len(v.ids))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if v.w[a] != v.w[b] {
			return v.w[a] > v.w[b]
		}
		return v.ids[a] < v.ids[b]
	})
	out := make([]int32, n)
	for i := range out {
		out[i] = v.ids[order[i]]
	}
	return out
}

// clusterRecords turns raw dream records into insights. Records are
// clustered only with records of the same session, so an insight never
// mixes what two people said.
func clusterRecords(recs []dreamRecord) []Insight {
	docs := make([]string, len(recs))
	for i := range recs {
		docs[i] = recs[i].Text
	}
	model, vecs := fitTFIDF(docs)
	byKey := map[string][]int{}
	var keys []string
	for i := range recs {
		k := recs[i].Key
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	slices.Sort(keys)
	var out []Insight
	for _, k := range keys {
		for _, cl := range clusterVectors(vecs, byKey[k], clusterSimilarity) {
			if len(cl.members) < minSupport {
				continue
			}
			out = append(out, makeInsight(model, vecs, recs, k, cl))
		}
	}
	return out
}

func makeInsight(m *tfidfModel, vecs []vec, recs []dreamRecord, key string, cl *cluster) Insight {
	n := len(cl.members)
	norm := math.Sqrt(cl.norm2)
	rep, repDot := cl.members[0], -1.0
	in := Insight{Key: key, Support: n}
	for _, i := range cl.members {
		var d float64
		for j, id := range vecs[i].ids {
			d += vecs[i].w[j] * cl.sum[id]
		}
		if d > repDot {
			rep, repDot = i, d
		}
		t := recs[i].Time
		if in.First.IsZero() || t.Before(in.First) {
			in.First = t
		}
		if t.After(in.Last) {
			in.Last = t
		}
	}
	ids := make([]int32, 0, len(cl.sum))
	for id := range cl.sum {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		if cl.sum[a] != cl.sum[b] {
			return cl.sum[a] > cl.sum[b]
		}
		return m.terms[a] < m.terms[b]
	})
	for _, id := range ids[:min(len(ids), 8)] {
		in.Terms = append(in.Terms, m.terms[id])
	}
	in.Text = cleanFact(recs[rep].Text)
	// Cohesion is the length of the mean member vector: 1 when all
	// members point the same way, near 0 when they barely agree.
	cohesion := norm / float64(n)
	in.Confidence = math.Round(cohesion*float64(n)/float64(n+2)*1000) / 1000
	return in
}
