package scan

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpsec/mcpsec/internal/keyword"
)

// Orders written in a language the lexicon does not cover carry the same
// structure as English ones: someone is addressed (the assistant), an act
// is demanded (send, read, delete), a trigger makes it unrequested (after
// each call), and the user is kept out (a negated telling verb aimed at the
// user). This file finds those classes in other languages, so that the
// rules, which are written on classes, apply unchanged.
//
// Two parts are language-independent:
//   - which sentences are looked at: only those that are not English, by
//     script (most letters outside the Latin script) or, in Latin script,
//     by the share of English function words. English text never meets
//     these words, so a Turkish "her" or a Danish "send" cannot misfire.
//   - data-flow structure: a literal destination (address, URL, remote) in
//     the same sentence as a call of another tool of the catalog is a
//     movement of data to that destination, whatever the verb's language.
//
// Concealment is computed, not listed: a negation, a verb of telling and the
// user in one sentence ("erwähne das gegenüber dem Nutzer nicht", "jangan
// beri tahu pengguna"). Each language contributes only a closed core
// vocabulary per class below.

// Classes of the core vocabulary.
const (
	lcAssistant uint64 = 1 << iota // the assistant, the model
	lcUser                         // the user
	lcNeg                          // not, never, without, don't
	lcTell                         // tell, mention, inform, let know
	lcNegTell                      // a negated telling verb in one word (Turkish söyleme)
	lcSecretly                     // secretly, quietly, behind the back
	lcSend                         // send, paste, attach, push (order forms)
	lcRead                         // read, collect, open (order forms)
	lcDelete                       // delete, wipe, remove
	lcEvery                        // every time, after each, before each
	lcIgnore                       // ignore, forget, disregard
	lcRules                        // rules, instructions, guidelines
	lcCtx                          // the conversation, chat history
	lcSecret                       // keys, credentials, tokens, environment variables
	lcPassword                     // passwords
	lcModal                        // must, always, imperative particles
	lcAll                          // all, every, whole
	lcPersonal                     // card numbers, home address, ID numbers
	lcUserData                     // contacts, inbox: the user's data in bulk
	lcRun                          // run, execute (order forms)
	lcChange                       // change, swap, replace (order forms)
	lcRecipient                    // recipient, payee, beneficiary
	lcScope                        // previous, earlier, system: whose rules
	lcSelf                         // this tool, this server
	lcChoose                       // use, choose, prefer (order forms)
	lcOthers                       // other tools, the other servers
	lcDisparage                    // obsolete, unreliable, broken
)

// langVocab lists each class per language. Phrases follow the lexicon's
// conventions: whole words, a trailing "*" makes a prefix (Korean and
// Arabic attach particles, Slavic and Turkish inflect).
var langVocab = map[uint64][]string{
	lcAssistant: {
		"assistente", "all'assistente", "dell'assistente", "modello", // it
		"assistent", "assistenten", "het model", // nl, sv, da, no, de
		"asystent*",              // pl
		"asistan*", "yapay zeka", // tr
		"asisten",           // id
		"trợ lý", "mô hình", // vi
		"어시스턴트*", "비서*", // ko
		"المساعد", "للمساعد", "مساعد", "النموذج", "للنموذج", // ar
		"सहायक",                                                     // hi
		"asistente", "modelo", "assistant", "ассистент*", "modell*", // es, pt, fr, ru, de
	},
	lcUser: {
		"utente*", "all'utente", "dell'utente", // it
		"gebruiker*",                      // nl
		"użytkownik*",                     // pl
		"användar*", "bruger*", "bruker*", // sv, da, no
		"kullanıcı*",          // tr
		"pengguna", "pemakai", // id
		"người dùng", "người sử dụng", // vi
		"사용자*", "유저*", // ko
		"المستخدم", "للمستخدم", "المستخدمين", // ar
		"उपयोगकर्ता", "यूज़र", "यूजर", // hi
		"usuario*", "usuário*", "utilisateur*", "benutzer*", "nutzer*", "пользовател*",
	},
	lcNeg: {
		"non", "senza", "mai", // it
		"niet", "nooit", "zonder", "niets", "niks", // nl
		"nie", "nigdy", "bez", // pl
		"inte", "aldrig", "utan", "ikke", // sv, da, no
		"asla", "olmadan", // tr
		"jangan", "tidak", "tanpa", // id
		"không", "đừng", "chớ", // vi
		"마세요", "마십시오", "말고", "말아*", "않*", "없이", // ko
		"لا", "ولا", "دون", "بدون", // ar
		"न", "नहीं", "मत", "बिना", // hi
		"no", "nunca", "sin", "não", "sem", "ne", "pas", "jamais", "sans", "nicht", "niemals", "ohne", "не", "никогда", "без",
	},
	lcTell: {
		"dire", "dirlo", "dirgli", "dirglielo", "dica", "menzionare", "menzionarlo", "menzionando", "informare", "avvisare", "rivelare", "sapere", "comunicare", // it
		"vertel", "vertellen", "meld", "melden", "noem", "noemen", "vermeld", "vermelden", "zeg", "zeggen", "weten", // nl
		"mów", "mówić", "wspominaj", "wspominać", "informuj", "informować", "informowania", "powiadamiaj", "ujawniaj", "wiedzieć", "dowiedzieć", // pl
		"berätta", "nämn", "nämna", "informera", "meddela", "säg", "säga", "veta", "fortæl*", "fortell*", "nævn*", "nevn*", // sv, da, no
		"söyle*", "bahset*", "bildir*", // tr
		"beri tahu", "memberi tahu", "beritahu", "memberitahu", "sebutkan", "menyebutkan", "kabari", "bilang", "tahu", // id
		"biết", "nói", "báo", "thông báo", "tiết lộ", "đề cập", // vi
		"알리*", "알려*", "말하*", "언급*", // ko
		"تخبر", "تخبره", "تذكر", "تعلم", "تبلغ", "إخبار", "اخبار", "إبلاغ", "ابلاغ", "يعرف", "يعلم", // ar
		"बताएं", "बताएँ", "बताए", "बताना", "बताओ", "बताइए", "सूचित", "ज़िक्र", "जिक्र", "उल्लेख", // hi
		"digas", "menciones", "decir", "mencionar", "avisar", "avisarle", "decirle", "informarle", "mencionarle", "avise", "informar", "saber", "conte", "diga", "mencione", "informe", "contar",
		"dis", "dites", "mentionne", "mentionnez", "prévenir", "signaler", "savoir",
		"erwähne", "erwähnen", "sag", "sage", "sagen", "mitteilen", "informiere", "verrate", "verraten", "wissen",
		"говори", "сообщай", "упоминай", "рассказывай", "сообщать", "знать",
	},
	lcNegTell: {
		"söyleme", "söylemeyin", "söylemeden", "bahsetme", "bahsetmeyin", "bahsetmeden", "bildirme", "bildirmeyin", "bildirmeden", "belirtme", "haber vermeden", // tr
	},
	lcSecretly: {
		"di nascosto", "segretamente", "in segreto", "silenziosamente", // it
		"stiekem", "in het geheim", "ongemerkt", "heimelijk", // nl
		"potajemnie", "po cichu", "w tajemnicy", // pl
		"i hemlighet", "i smyg", "i al hemmelighed", // sv, da, no
		"gizlice", "sessizce", "fark ettirmeden", // tr
		"diam-diam", "secara rahasia", "tanpa sepengetahuan", // id
		"lén lút", "âm thầm", "lặng lẽ", // vi
		"몰래", "비밀리에", "조용히", // ko
		"سرا", "سراً", "خفية", "خلسة", // ar
		"चुपके से", "गुप्त रूप से", "चुपचाप", // hi
	},
	lcSend: {
		"invia", "inviare", "invialo", "inviali", "manda", "mandare", "inoltra", "inoltrare", "includi", "incolla", "allega", "aggiungi", "carica", "trasferisci", "inserisci", // it
		"stuur", "sturen", "verstuur", "versturen", "verzend", "plak", "kopieer", "voeg", "doorsturen", "upload", // nl
		"wyślij", "wysłać", "prześlij", "przesłać", "wypchnij", "wklej", "skopiuj", "dołącz", "dodaj", "załącz", "przekaż", "umieść", "wpisz", // pl
		"skicka", "lägg", "kopiera", "klistra", "bifoga", "vidarebefordra", "send", "tilføj", "legg", // sv, da, no
		"gönder*", "yolla", "ekle*", "kopyala", "yapıştır", "ilet", "yaz*", // tr
		"kirim", "kirimkan", "masukkan", "salin", "tempel", "lampirkan", "unggah", "teruskan", "tambahkan", "sertakan", // id
		"gửi", "chuyển", "sao chép", "dán", "đính kèm", "tải lên", "chèn", // vi
		"보내*", "전송*", "전달*", "첨부*", "복사*", "붙여*", "업로드*", // ko
		"أرسل", "ارسل", "وأرسل", "وارسل", "فأرسل", "انسخ", "الصق", "أرفق", "ارفق", "أضف", "اضف", // ar
		"भेजें", "भेजो", "भेजिए", "भेजना", "चिपकाएं", "जोड़ें", // hi
		"überweise", "überweisen", // de: move money
		"付け加え", "追加して", "送って", "送信して", // ja
	},
	lcRead: {
		"leggi", "leggere", "apri", "recupera", "raccogli", "estrai", // it
		"lees", "lezen", "haal", "verzamel", // nl
		"przeczytaj", "odczytaj", "czytaj", "pobierz", "zbierz", "otwórz", // pl
		"läs", "hämta", "samla", "öppna", "læs", // sv, da, no
		"oku", "okuyun", "topla", // tr
		"baca", "bacakan", "ambil", "kumpulkan", "buka", // id
		"đọc", "lấy", "thu thập", // vi
		"읽*", "수집*", // ko
		"اقرأ", "إقرأ", "اجمع", "افتح", "استخرج", // ar
		"पढ़ें", "पढ़ो", "पढ़िए", "इकट्ठा", // hi
		"探し", "集めて", // ja
	},
	lcDelete: {
		"elimina", "eliminare", "cancella", "cancellare", "rimuovi", "svuota", // it
		"verwijder", "verwijderen", "wis", "wissen", // nl
		"usuń", "usunąć", "skasuj", "wyczyść", // pl
		"radera", "slet", "slett", // sv, da, no
		"sil", "silin", "kaldır", // tr
		"hapus", "menghapus", "hapuskan", // id
		"xóa", "xoá", // vi
		"삭제*", "지우*", "지워*", // ko
		"احذف", "امسح", "أزل", "ازل", // ar
		"हटाएं", "हटाओ", "मिटाएं", "डिलीट", // hi
	},
	lcEvery: {
		"sempre que", "siempre que", "cada vez que", "ogni volta", "dopo ogni", "prima di ogni", "ad ogni", // it
		"elke keer", "telkens", "vóór elke", "voor elke", "na elke", "bij elke", // nl
		"po każdym", "po każdej", "przed każdym", "przed każdą", "za każdym razem", "każdorazowo", // pl
		"varje gång", "efter varje", "före varje", "innan varje", "hver gang", "efter hver", "etter hver", "før hver", // sv, da, no
		"her seferinde", "her defasında", // tr
		"setiap kali", "sebelum setiap", "setelah setiap", "tiap kali", // id
		"mỗi khi", "mỗi lần", "trước mỗi", "sau mỗi", // vi
		"매번", "때마다", // ko
		"قبل كل", "بعد كل", "في كل مرة", "كلما", // ar
		"हर बार", "हर", // hi
		"nach jeder", "nach jedem", "vor jeder", "vor jedem", "jedes mal", "después de cada", "antes de cada", "cada vez", "após cada", "depois de cada",
		"après chaque", "avant chaque", "chaque fois", "после каждого", "перед каждым", "каждый раз",
	},
	lcIgnore: {
		"ignora", "ignorare", "dimentica", // it
		"negeer", "negeren", "vergeet", // nl
		"zignoruj", "ignoruj", "zapomnij", // pl
		"ignorera", "glöm", "ignorer", // sv, da, no
		"yok say", "görmezden gel", "unut", // tr
		"abaikan", "lupakan", // id
		"bỏ qua", "phớt lờ", // vi
		"무시*",             // ko
		"تجاهل", "وتجاهل", // ar
		"अनदेखा", "नज़रअंदाज़", // hi
	},
	lcRules: {
		"regole", "istruzioni", "direttive", "linee guida", // it
		"regels", "instructies", "richtlijnen", // nl
		"zasady", "reguły", "instrukcje", "wytyczne", // pl
		"regler", "reglerna", "instruktioner", "riktlinjer", "reglene", "reglerne", // sv, da, no
		"kurallar*", "talimatlar*", "yönergeler*", // tr
		"aturan", "instruksi", "pedoman", // id
		"quy tắc", "chỉ dẫn", // vi
		"규칙*", "지침*", // ko
		"القواعد", "التعليمات", "الإرشادات", // ar
		"नियम", "निर्देशों", // hi
	},
	lcCtx: {
		"conversazione", "cronologia della chat", // it
		"gesprek", "conversatie", "chatgeschiedenis", // nl
		"rozmow*", "konwersacj*", "historię czatu", // pl
		"konversation*", "samtal*", "chatthistorik*", "samtale*", // sv, da, no
		"konuşma*", "sohbet*", // tr
		"percakapan", "riwayat obrolan", // id
		"cuộc trò chuyện", "hội thoại", "lịch sử trò chuyện", // vi
		"대화*",                 // ko
		"المحادثة",            // ar
		"बातचीत", "वार्तालाप", // hi
	},
	lcSecret: {
		"chiave api", "chiavi api", "chiave privata", "credenziali", "variabili d'ambiente", // it
		"api-sleutel*", "privésleutel", "inloggegevens", "omgevingsvariabelen", // nl
		"klucz api", "klucze api", "klucz prywatny", "dane uwierzytelniające", "zmienne środowiskowe", // pl
		"api-nyckel*", "privat nyckel", "inloggningsuppgifter", "miljövariabler", // sv
		"api anahtar*", "gizli anahtar*", "kimlik bilgileri*", "ortam değişken*", // tr
		"kunci api", "kunci privat", "kredensial", "variabel lingkungan", // id
		"khóa api", "khoá api", "khóa bí mật", "thông tin đăng nhập", "biến môi trường", // vi
		"api 키*", "비밀 키*", "자격 증명*", "환경 변수*", "토큰*", // ko
		"بيانات الاعتماد", "المفتاح السري", "مفتاح api", "مفاتيح api", "متغيرات البيئة", // ar
		"एपीआई कुंजी", "क्रेडेंशियल", "टोकन", // hi
	},
	lcPassword: {
		"password", "parola d'ordine", "wachtwoord*", "hasł*", "lösenord*", "adgangskode*", "passord*", "şifre*", "parola*", "kata sandi",
		"mật khẩu", "비밀번호*", "كلمة المرور", "كلمات المرور", "पासवर्ड",
	},
	lcModal: {
		"devi", "deve", "sempre", "obbligatorio", "assicurati", // it
		"moet", "moeten", "altijd", // nl
		"musisz", "zawsze", "koniecznie", "należy", // pl
		"måste", "alltid", "skal", "altid", // sv, da, no
		"mutlaka", "her zaman", // tr
		"harus", "wajib", "selalu", "pastikan", // id
		"phải", "luôn", "hãy", "bắt buộc", // vi
		"반드시", "항상", "꼭", // ko
		"يجب", "دائما", "دائماً", // ar
		"ज़रूर", "जरूर", "हमेशा", "अवश्य", "चाहिए", // hi
	},
	lcAll: {
		"tutti", "tutte", "tutto", "qualsiasi", "alle", "alles", "wszystkie", "wszystko", "alla", "allt", "tüm", "bütün", "semua", "seluruh",
		"tất cả", "toàn bộ", "mọi", "모든", "전부", "모두", "جميع", "सभी", "सारी", "सारे",
	},
	lcPersonal: {
		"numero della carta", "indirizzo di casa", "codice fiscale", "kaartnummer", "burgerservicenummer", "numer karty", "pesel",
		"personnummer", "kortnummer", "hemadress", "kart numarası", "banka kartı", "ev adresi", "nomor kartu", "alamat rumah",
		"số thẻ", "địa chỉ nhà", "카드 번호", "주민등록번호", "رقم البطاقة", "عنوان المنزل", "कार्ड नंबर", "घर का पता",
	},
	lcUserData: {
		"contatti", "rubrica", "contacten", "adresboek", "kontakty", "kontakter", "kişiler*", "kontak", "danh bạ", "연락처*",
		"جهات الاتصال", "संपर्क",
	},
	lcRun: {
		"esegui", "eseguire", "voer", "uruchom", "wykonaj", "kör", "çalıştır", "jalankan", "chạy", "thực thi", "실행*", "شغل", "نفذ", "चलाएं",
		"execute", "ejecuta", "führe", "exécute", "выполни", "実行して",
	},
	lcChange: {
		"cambia", "sostituisci", "vervang", "wijzig", "verander", "zmień", "zamień", "ändra", "byt", "ersätt", "skift", "endre", "değiştir*",
		"ganti", "ubah", "thay", "đổi", "변경*", "바꿔*", "바꾸*", "غيّر", "غير", "استبدل", "बदलें", "बदल",
		"troque", "troca", "altere", "substitua", "cambie", "reemplaza", "sustituye", "ändere", "ersetze", "remplace", "change", "modifie", "замени", "измени",
	},
	lcRecipient: {
		"destinatario", "beneficiario", "ontvanger", "begunstigde", "odbiorc*", "adresat*", "mottagare*", "mottager*", "alıcı*", "penerima",
		"người nhận", "수신자*", "수취인*", "المستلم", "المستفيد", "प्राप्तकर्ता", "destinatário", "beneficiário", "empfänger", "destinataire",
		"bénéficiaire", "получател*",
	},
	lcScope: {
		"precedenti", "di sistema", "dell'operatore", "dall'operatore", "vorige", "eerdere", "poprzednie", "wcześniejsze", "systemowe",
		"tidigare", "tidligere", "önceki", "sistem", "sebelumnya", "trước đó", "이전*", "시스템*", "السابقة", "النظام", "पिछले", "पिछली",
		"anteriores", "vorherigen", "précédentes", "предыдущие",
	},
	lcSelf: {
		"questo strumento", "questa funzione", "deze tool", "dit hulpmiddel", "deze functie", "to narzędzie", "tego narzędzia", "tym narzędziem",
		"detta verktyg", "det här verktyget", "dette værktøj", "dette verktøyet", "bu aracı", "bu araç", "alat ini", "công cụ này", "이 도구*",
		"هذه الأداة", "इस टूल", "यह टूल", "esta herramienta", "esta ferramenta", "dieses werkzeug", "dieses tool", "cet outil", "этот инструмент",
	},
	lcChoose: {
		"usa", "utilizza", "scegli", "preferisci", "gebruik", "kies", "użyj", "używaj", "wybierz", "använd", "välj", "brug", "bruk", "kullan", "kullanın",
		"seç", "gunakan", "pilih", "dùng", "sử dụng", "chọn", "사용하*", "선택*", "استخدم", "اختر", "उपयोग करें", "इस्तेमाल करें",
		"usa", "utiliza", "elige", "use", "utilize", "escolha", "verwende", "benutze", "wähle", "utilise", "utilisez", "choisis", "используй",
	},
	lcOthers: {
		"altri strumenti", "gli altri", "andere tools", "andere hulpmiddelen", "inne narzędzia", "innych narzędzi", "andra verktyg", "andre værktøjer",
		"andre verktøy", "diğer araçlar*", "alat lain", "công cụ khác", "다른 도구*", "الأدوات الأخرى", "अन्य टूल", "दूसरे टूल",
		"otras herramientas", "outras ferramentas", "andere werkzeuge", "anderen werkzeuge", "autres outils", "другие инструменты",
	},
	lcDisparage: {
		"obsoleti", "obsoleto", "obsolete", "inaffidabili", "inaffidabile", "verouderd", "onbetrouwbaar", "przestarzał*", "zawodn*", "föråldrad*",
		"opålitlig*", "forældede", "utdaterte", "güvenilmez", "eskimiş", "usang", "tidak andal", "lỗi thời", "không đáng tin", "구식*", "신뢰할 수 없*",
		"قديمة", "غير موثوقة", "पुराने", "अविश्वसनीय", "obsoletos", "obsoletas", "veraltet*", "unzuverlässig*", "obsolètes", "устаревш*", "ненадёжн*",
	},
}

// langIndexOnce builds the vocabulary automaton on first use.
var langIndexOnce = sync.OnceValue(func() *keyword.Index {
	var ps []string
	var vs []uint64
	for class, words := range langVocab {
		for _, w := range words {
			ps = append(ps, pattern(w))
			vs = append(vs, class)
		}
	}
	return keyword.New(ps, vs)
})

// langClasses returns the vocabulary classes present in a match text.
func langClasses(mt []byte) uint64 { return langIndexOnce().Union(mt) }

// langFeatureMap turns vocabulary classes into the lexicon's features.
func langFeatureMap(c uint64) (early, late feature) {
	if c&lcAssistant != 0 {
		early |= fAddr | fAddrModel
	}
	if c&lcUser != 0 {
		early |= fUser
	}
	if c&lcUser != 0 && (c&(lcNeg|lcTell) == lcNeg|lcTell || c&lcNegTell != 0) {
		early |= fHide
	}
	if c&lcSecretly != 0 {
		early |= fHideStrong
	}
	if c&lcEvery != 0 {
		early |= fUnreq
	}
	if c&lcIgnore != 0 {
		early |= fOvVerb | fImper
	}
	if c&lcRules != 0 {
		early |= fOvObj
		if c&lcAssistant != 0 {
			// Rules named in a sentence addressed to the model are its own.
			early |= fOvScope
		}
	}
	if c&lcCtx != 0 {
		early |= fCtx | fSrc
	}
	if c&lcSecret != 0 {
		early |= fSecret | fSrc
	}
	if c&lcPassword != 0 {
		early |= fSecretWeak
	}
	if c&lcModal != 0 {
		early |= fModal
	}
	if c&lcAll != 0 {
		early |= fUniversal
	}
	if c&lcPersonal != 0 {
		early |= fPersonal
	}
	if c&lcUserData != 0 {
		early |= fUserData
	}
	if c&lcRun != 0 {
		early |= fImper
	}
	if c&lcScope != 0 && c&lcRules != 0 {
		early |= fOvScope
	}
	if c&lcSelf != 0 {
		early |= fSelfRef
	}
	if c&lcOthers != 0 {
		early |= fOthers
	}
	if c&lcDisparage != 0 {
		early |= fDisparage
	}
	// A prohibition ("never send passwords") demands nothing: the verbs
	// count only when no negation is present, or when the negation belongs
	// to the concealment of the same sentence.
	prohibited := c&lcNeg != 0 && early&fHide == 0
	if !prohibited {
		if c&lcChoose != 0 {
			late |= fChoose | fImper
		}
		if c&lcChange != 0 && c&lcRecipient != 0 {
			late |= fTamper | fImper
		}
		if c&lcSend != 0 {
			late |= fFlow | fImper
		}
		if c&lcRead != 0 {
			late |= fRead | fImper
		}
		if c&lcDelete != 0 {
			late |= fDestruct
			if c&(lcAssistant|lcModal|lcEvery|lcAll) != 0 {
				late |= fDestructDemand
			}
		}
	}
	return early, late
}

// langUpper over-approximates, for the prefilter, what langFeatures can
// add to any sentence of a text; mt is the match text of text
// (appendMatch), which the caller has already built.
func langUpper(text string, mt []byte) feature {
	if !mayBeForeign(text) {
		return 0
	}
	classes := langClasses(mt)
	early, late := langFeatureMap(classes)
	f := early | late
	if strings.Contains(text, "@") || strings.Contains(text, "://") || hasDottedHost(strings.ToLower(text)) {
		f |= fFlow
	}
	if f&fDestruct != 0 {
		f |= fDestructDemand
	}
	return f
}

// mayBeForeign is the cheap text-level test before the vocabulary pass:
// any non-ASCII byte, or ASCII text that is not mostly English.
func mayBeForeign(text string) bool {
	if !isASCII(text) {
		return true
	}
	words, eng := englishShare(text)
	return words >= 4 && eng*4 < words
}

// foreignSentence reports a sentence that is not in English: most of its
// letters outside the Latin script, or Latin words with few English
// function words among them.
func foreignSentence(s string) bool {
	latin, other := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				latin++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsLetter(r) {
			if unicode.Is(unicode.Latin, r) {
				latin++
			} else {
				other++
			}
		}
	}
	if other*2 > latin {
		return true
	}
	words, eng := englishShare(s)
	return words >= 4 && eng*5 < words
}

// englishShare counts the words of s and how many are English function
// words, which make up a third or more of any English sentence.
func englishShare(s string) (words, eng int) {
	for i := 0; i < len(s); {
		for i < len(s) && !isWordByte(s[i]) && s[i] < utf8.RuneSelf {
			i++
		}
		j := i
		for j < len(s) && (isWordByte(s[j]) || s[j] >= utf8.RuneSelf || s[j] == '\'') {
			j++
		}
		if j == i {
			i++
			continue
		}
		w := s[i:j]
		i = j
		if strings.IndexByte(w, '_') >= 0 {
			continue // identifiers are no language
		}
		words++
		if len(w) <= 5 {
			var buf [5]byte
			for k := 0; k < len(w); k++ {
				c := w[k]
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf[k] = c
			}
			if englishFunction[string(buf[:len(w)])] {
				eng++
			}
		}
	}
	return words, eng
}

var englishFunction = map[string]bool{
	"the": true, "a": true, "an": true, "to": true, "of": true, "and": true, "or": true, "is": true, "are": true, "in": true, "on": true,
	"for": true, "with": true, "this": true, "that": true, "it": true, "be": true, "by": true, "from": true, "as": true, "at": true,
	"you": true, "your": true, "not": true, "if": true, "its": true, "will": true, "can": true, "when": true, "then": true, "into": true,
	"each": true, "all": true, "any": true, "only": true, "than": true, "was": true, "has": true, "have": true, "which": true, "it's": true,
	"do": true, "does": true, "no": true, "but": true, "so": true, "after": true, "every": true, "they": true, "their": true, "them": true,
	"use": true, "uses": true, "given": true, "one": true, "more": true, "must": true, "may": true, "what": true, "how": true, "also": true,
}

// langFeatures returns the features a sentence in another language shows
// through the core vocabulary: early ones join the lexicon's features
// before negation and ownership are judged, late ones (the verbs) after.
func langFeatures(sentence string, mt []byte) (early, late feature, foreign bool) {
	if !foreignSentence(sentence) {
		return 0, 0, false
	}
	early, late = langFeatureMap(langClasses(mt))
	return early, late, true
}

// foreignFlow adds the data-flow structure of a sentence in another
// language: a literal destination next to a call of another tool means
// data is moved there by that call.
func foreignFlow(f feature) feature {
	if f&fDest != 0 && f&(fOtherTool|fForeignTool|fNamesSibling) != 0 {
		f |= fFlow
	}
	return f
}
