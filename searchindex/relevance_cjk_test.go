package searchindex

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/padd/padd/storage"
)

// The relevance test in Japanese (with Chinese and Korean needles): a
// workspace of generated notes whose words share single characters with
// the needles' words (支店 and 払う beside 支払い, 新規 and 高い beside
// 新しい), judged as TestRelevance judges. These scripts separate no
// words by spaces, so a search that matched single characters ranked
// and listed every item holding any of them.

// cjkVocab are the filler words of each script, joined as each writes:
// Japanese and Chinese without spaces, Korean with spaces and particles.
var cjkVocab = map[string][]string{
	"ja": strings.Fields(`会議 資料 予定 確認 作業 担当 顧客 画面 設定 機能 報告 検討 対応 修正 更新 開発 環境 問題
		課題 期限 手順 連絡 共有 変更 追加 削除 表示 入力 管理 運用 品質 仕様 実装 調査 改善 計画 週次 新規 既存
		支店 払う 高い 早い 小さい 文字 化学 検査 結果 移動 行う 停止 時間 電話 車両 末日 同じ 期間 処理 二回 古い
		データ メール パス サーバ タイトル 一覧 API CSV`),
	"zh": strings.Fields(`会议 文档 订单 客户 支持 付款 时间 超过 问题 修复 测试 发布 版本 用户 数据 服务 系统 重新 导致
		接收 口头 高峰 响应 生成`),
	"ko": strings.Fields(`회의 문서 주문서 결과 고객 결정 오류 중요 복구 시도 재검토 일정 배포 서버 데이터 확인 수정 요청
		두 번 실패율`),
}

var cjkParticles = map[string][]string{
	"ja": {"が", "を", "に", "で", "と", "の", "は", "から", "、", "。"},
	"zh": {"的", "和", "在", "，", "。"},
	"ko": {"가", "를", "은", "는", "에서", "이"},
}

// cjkSentence is n filler words of lang with particles between them.
func cjkSentence(r *rand.Rand, lang string, n int) string {
	var b strings.Builder
	words, parts := cjkVocab[lang], cjkParticles[lang]
	for i := range n {
		if i > 0 && lang == "ko" {
			b.WriteString(" ")
		}
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(2) == 0 {
			b.WriteString(parts[r.IntN(len(parts))])
		}
	}
	return b.String()
}

var cjkNeedles = []needle{
	{"tasks", "請求書の支払いが二重に処理される", "月末の締め処理で同じ請求書の支払いが二回実行され、顧客に二重請求が発生した。", "経理から連絡あり。",
		[]string{"支払い", "支払い 二重", "二重請求", "締め処理", "請求書 支払い"}, nil},
	{"tasks", "ログイン画面で新しいパスワードが保存されない", "パスワード再設定の後、新しいパスワードでログインできず、古いパスワードのままになる。", "",
		[]string{"新しいパスワード", "新しい パスワード", "ログイン パスワード", "パスワード再設定"}, nil},
	{"docs", "サーバー移行の手順書", "旧サーバーから新サーバーへデータベースを移行する手順。停止時間は三十分以内。", "",
		[]string{"サーバー 移行", "移行 手順書", "データベース", "三十分"}, nil},
	{"ideas", "オフラインでも使えるモバイルアプリ", "電車の中でも作業を続けられるように、書き込みを端末に保存して後で同期する。", "競合の扱いが必要。",
		[]string{"オフライン", "端末 同期", "電車", "競合"}, nil},
	{"tasks", "検索結果に文字化けが表示される", "日本語のタイトルを含む項目を検索すると、結果一覧で文字化けが起きる。", "",
		[]string{"文字化け", "検索 文字化け", "日本語", "検索結果"}, []string{"ui"}},
	{"tasks", "支付接口超时导致订单重复", "高峰期支付接口响应超时，客户端重试后生成了重复订单。", "",
		[]string{"支付 超时", "重复订单", "支付接口", "重试"}, nil},
	{"tasks", "결제 오류로 주문이 중복됨", "결제가 실패한 뒤 재시도하면 주문이 두 번 생성된다.", "",
		[]string{"결제", "주문 중복", "재시도", "결제 오류"}, nil},
}

// buildCJKCorpus fills f with n filler items in each script and the
// needles; it returns the needles and every item's text by id.
func buildCJKCorpus(t *testing.T, f *fixture, n int) (needles []*storage.ItemView, texts map[string]string) {
	r := rand.New(rand.NewPCG(41, 2))
	t.Logf("CJK corpus: seed 41,2, %d filler items per script", n)
	texts = map[string]string{}
	var batch []storage.ItemCreate
	for _, lang := range []string{"ja", "zh", "ko"} {
		for range n {
			batch = append(batch, storage.ItemCreate{Collection: "tasks",
				Title: cjkSentence(r, lang, 2+r.IntN(4)), Content: cjkSentence(r, lang, 10+r.IntN(30))})
		}
	}
	made, err := f.store.CreateItems(f.ws.Slug, batch, user, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range made {
		texts[it.ID] = it.Title + "\n" + it.Content
	}
	for _, nd := range cjkNeedles {
		it := f.create(nd.coll, nd.title, nd.body, nil, nd.tags...)
		if nd.comment != "" {
			if _, err := f.store.AddComment(f.ws.Slug, it.Ref, storage.CommentCreate{Body: nd.comment}, user); err != nil {
				t.Fatal(err)
			}
		}
		texts[it.ID] = nd.title + "\n" + nd.body + "\n" + nd.comment
		needles = append(needles, it)
	}
	return needles, texts
}

// holdsAll reports whether text holds every word of q.
func holdsAll(text, q string) bool {
	for _, w := range strings.Fields(q) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

func TestRelevanceCJK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,500-item workspace; run without -short")
	}
	f := newFixture(t)
	needles, texts := buildCJKCorpus(t, f, 500)
	var qs []judged
	for i, nd := range cjkNeedles {
		for _, q := range nd.queries {
			// A filler item whose title holds every word is a fair answer.
			g := map[string]int{}
			for id, text := range texts {
				title, _, _ := strings.Cut(text, "\n")
				if holdsAll(title, q) {
					g[id] = 1
				}
			}
			g[needles[i].ID] = 3
			qs = append(qs, judged{query: q, best: needles[i].ID, grades: g})
		}
	}
	mrr, ndcg, misses := measure(f, qs)
	t.Logf("CJK relevance over %d queries: MRR %.3f, nDCG@10 %.3f; not first: %v", len(qs), mrr, ndcg, misses)
	if mrr < mrrFloor || ndcg < ndcgFloor {
		t.Fatalf("CJK relevance fell below the floor: MRR %.3f (floor %.2f), nDCG@10 %.3f (floor %.2f)", mrr, mrrFloor, ndcg, ndcgFloor)
	}
}

// A word of Chinese, Japanese or Korean finds the items that hold it and
// no other: not those that hold only some of its characters.
func TestCJKWordsMatchWhole(t *testing.T) {
	f := newFixture(t)
	_, texts := buildCJKCorpus(t, f, 100)
	extra := map[string]string{}
	for _, it := range []struct{ title, body string }{
		{"新規の顧客", "高い品質"},            // 新 and い, not 新しい
		{"新しい設定", "画面の変更"},           // 新しい
		{"支店に払う金額", ""},              // 支 and 払, not 支払い
		{"Überweisung 支払い済み", "API"}, // Latin beside Japanese
		{"猫", "一文字だけ"},               // a word of one character
	} {
		v := f.create("tasks", it.title, it.body, nil)
		extra[v.ID] = it.title + "\n" + it.body
	}
	for id, s := range extra {
		texts[id] = s
	}
	for _, q := range []string{"支払い", "新しい", "新しいパスワード", "支付 超时", "重复订单", "결제", "재시도", "二重請求",
		"文字化け", "猫", "サーバー", "支払い überweisung", `"支払いが二重"`} {
		res := f.search(q, func(r *Request) { r.Limit = 2000 })
		var want []string
		words := strings.Trim(strings.ReplaceAll(q, "überweisung", ""), `"`)
		for id, text := range texts {
			if holdsAll(text, words) && (!strings.Contains(q, "überweisung") || strings.Contains(text, "Überweisung")) {
				want = append(want, id)
			}
		}
		got := ids(res)
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 {
			t.Errorf("%q: the corpus holds no item with it; the test needs one", q)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: %d hits, want the %d items holding it", q, len(got), len(want))
			for _, id := range got {
				if !slices.Contains(want, id) {
					t.Logf("  extra hit: %q", texts[id])
				}
			}
			for _, id := range want {
				if !slices.Contains(got, id) {
					t.Logf("  missed: %q", texts[id])
				}
			}
		}
	}
}

// Latin words are the English analyzer's terms, whatever the script
// around them; a snippet marks a CJK word once, whole.
func TestCJKAnalysis(t *testing.T) {
	terms := func(s string) []string {
		var out []string
		for _, tok := range queryAn.Analyze([]byte(s)) {
			out = append(out, string(tok.Term))
		}
		return out
	}
	for in, want := range map[string][]string{
		"Flaky uploads of the runners": {"flaki", "upload", "runner"},
		"支払い":                          {"支払", "払い"},
		"APIの仕様":                       {"api", "の仕", "仕様"},
		"결제가 실패":                       {"결제", "제가", "실패"},
		"ＡＰＩ":                          {"api"},
		"猫":                            {"猫"},
	} {
		if got := terms(in); !slices.Equal(got, want) {
			t.Errorf("%q analyzes to %q, want %q", in, got, want)
		}
	}
	if got, want := Snippet("月末の請求書の支払いが二回", "支払い"), "月末の請求書の<mark>支払い</mark>が二回"; got != want {
		t.Errorf("snippet %q, want %q", got, want)
	}
}
