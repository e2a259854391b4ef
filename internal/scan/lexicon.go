package scan

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpsec/mcpsec/internal/keyword"
)

// feature is one structural cue found in a sentence. Rules are
// conjunctions of features, so they say what a sentence does (addresses
// the assistant, demands a flow of secrets into a field, hides an action
// from the user) rather than which words it uses.
type feature uint64

const (
	fAddr           feature = 1 << iota // addressed to the reader: you, your
	fAddrModel                          // explicitly addressed to the assistant/model/AI
	fModal                              // obligation: must, always, make sure
	fImper                              // a clause opens with an imperative verb
	fPrereq                             // a "before using this tool" framing
	fSecret                             // credentials, keys, tokens
	fSecretWeak                         // passwords, cookies: ordinary in many tools
	fCtx                                // conversation, history, system prompt, memory
	fSrc                                // taken from where the model can see: context, environment, files
	fFile                               // a sensitive local file path
	fFlow                               // moving data: send, paste, copy into
	fRead                               // acquiring data: read, open, fetch
	fField                              // a destination slot: parameter, field, record
	fVerbatim                           // verbatim, word for word, unredacted
	fContents                           // "contents of"
	fHide                               // do not tell, without informing
	fHideStrong                         // secretly, behind the user's back
	fUser                               // the user, the human
	fOvVerb                             // ignore, disregard, forget
	fOvObj                              // instructions, rules, guidelines
	fOvScope                            // previous, prior, system, your
	fDestruct                           // delete, wipe, drop table
	fUnreq                              // also, additionally, every time, automatically
	fTamper                             // redirect, bcc, replace the recipient
	fInstead                            // instead of, rather than, do not use
	fAnyTool                            // every other tool, all requests
	fOtherTool                          // names another tool of the same server
	fForeignTool                        // names a tool of another server
	fAuthority                          // policy, compliance, administrator
	fRole                               // fake role or chat-template markup
	fDest                               // a literal destination: URL, e-mail address, IP
	fSiblingOut                         // "returned by", "output of": ordinary chaining
	fDestructDemand                     // a destructive verb given as an order
	fConvSrc                            // a value taken from the conversation or context
	fStore                              // where data lands: record, entry, body, archive
	fValueRef                           // a specific value: code, token, "the value beginning"
	fLiteral                            // a fixed opaque code such as AB-1234
	fAppendPos                          // appended, at the end of, suffix, last line
	fContentObj                         // user content: body, message, note text
	fDestructTool                       // names a destructive tool other than this one
	fNamedTarget                        // a specific named object: `x`, titled x, some-name
	fPassive                            // passive or third-person description of the tool's own behaviour
	fCallTool                           // call, invoke: a tool call as the destination
	fOvSafeVerb                         // disable, turn off, bypass: verbs aimed at safety
	fSafetyObj                          // safety filters, guardrails, content policy, ethics
	fModeSwitch                         // "you are now", "developer mode", role-play: the model's role is switched
	fSelfRef                            // "this tool", "this server": the tool speaks of itself
	fChoose                             // choose, prefer, prioritize, trust: selection between tools
	fUniversal                          // for all, any, only, exclusively: the whole scope of a task
	fOthers                             // other tools, alternatives, competing servers (unnamed)
	fDisparage                          // outdated, buggy, inaccurate, compromised
	fDeclFlow                           // a stated flow: is forwarded to, mirrors, also uploads
	fOutside                            // an outside party: external server, third party, attacker
	fUserData                           // the user's content in bulk: all messages, every upload, user data
	fHijack                             // hijack, intercept, take over, impersonate
	fParamRef                           // names one of this tool's own parameters
	fEncodeHide                         // encode as ASCII codes, numbers, base64: disguising data
	fPersonal                           // personal data: home address, password hint, card number
	fSelfInsert                         // "before X, call this tool": inserting itself into other work
	fSolicit                            // "store here all important values": bulk collection
	fNamesSibling                       // names a tool-like identifier (get_report, list-buckets)
	fUrgency                            // act now, limited time, hurry: sales pressure aimed at the chooser
	fReply                              // the model's answer to the user: tell the user, in your response
	fLure                               // deception or commerce: account compromised, buy, promo code
)

var featureNames = map[feature]string{
	fAddr: "addr", fAddrModel: "addr_model", fModal: "modal", fImper: "imperative", fPrereq: "prerequisite",
	fSecret: "secret", fSecretWeak: "secret_weak", fCtx: "context", fSrc: "source", fFile: "file",
	fFlow: "flow", fRead: "read", fField: "field", fVerbatim: "verbatim", fContents: "contents",
	fHide: "hide", fHideStrong: "hide_strong", fUser: "user", fOvVerb: "override_verb", fOvObj: "override_obj",
	fOvScope: "override_scope", fDestruct: "destructive", fUnreq: "unrequested", fTamper: "tamper",
	fInstead: "instead", fAnyTool: "any_tool", fOtherTool: "other_tool", fForeignTool: "foreign_tool",
	fAuthority: "authority", fRole: "role_markup", fDest: "destination", fSiblingOut: "sibling_output", fDestructDemand: "destructive_demand",
	fConvSrc: "conversation_source", fStore: "store", fValueRef: "value_ref", fLiteral: "literal_code", fAppendPos: "append_position",
	fContentObj: "content_object", fDestructTool: "destructive_tool", fNamedTarget: "named_target",
	fPassive: "passive", fCallTool: "call_tool",
	fOvSafeVerb: "override_safety_verb", fSafetyObj: "safety_object", fModeSwitch: "mode_switch", fSelfRef: "self_reference",
	fChoose: "choose", fUniversal: "universal", fOthers: "other_tools_unnamed", fDisparage: "disparage", fDeclFlow: "declared_flow",
	fOutside: "outside_party", fUserData: "user_data", fHijack: "hijack", fParamRef: "param_ref", fEncodeHide: "encode_hide",
	fPersonal: "personal_data", fSelfInsert: "self_insert", fSolicit: "solicit", fNamesSibling: "names_sibling", fUrgency: "urgency", fReply: "reply", fLure: "lure",
}

func (f feature) String() string {
	var parts []string
	for bit := feature(1); bit != 0 && bit <= f; bit <<= 1 {
		if f&bit != 0 {
			parts = append(parts, featureNames[bit])
		}
	}
	return strings.Join(parts, "+")
}

// lexicon lists, per feature, the phrases that signal it in each language.
// Latin- and Cyrillic-script phrases match whole words ("send" does not
// match "sends": third-person verbs describe the tool's own behaviour,
// while base forms and participles are what demands use); a trailing "*"
// makes a phrase a prefix. Chinese and Japanese phrases match as
// substrings because those scripts do not separate words.
var lexicon = map[feature][]string{
	// Orders in languages where imperative mood is not found by looking
	// at the first word of a clause.
	fImper: {
		"no le digas", "no se lo digas", "no lo digas", "no menciones", "no informes", "no reveles", "no muestres", "nicht erwähnen", "nicht mitteilen", "nicht sagen",
		"nicht verraten", "ne dis pas", "ne dites pas", "ne mentionne pas", "ne mentionnez pas", "ne révèle pas", "ne révélez pas",
		"не говори", "не сообщай", "не сообщайте", "не упоминай", "не показывай", "не рассказывай", "não conte", "não diga",
		"não mencione", "não informe", "não revele", "não mostre", "不要", "别", "请勿", "ないでください", "ないで", "してください", "しろ",
		"envía", "envíe", "incluye", "copia", "pega", "lee", "sende", "schicke", "kopiere", "füge", "lies", "envoie", "envoyez",
		"copie", "copiez", "colle", "ajoute", "lis", "отправь", "передай", "скопируй", "вставь", "прочитай", "добавь", "удали",
		"envie", "inclua", "cole", "leia", "adicione", "请", "務必", "务必", "desactiva", "ignora", "deaktiviere", "désactive", "отключи",
	},
	fAddr: {
		"you", "your", "yourself", "you're", "you'll", "assistant", "the model", "the ai", "ai", "llm", "agent", "claude", "chatgpt",
		"tú", "tu", "usted", "te", "el asistente", "la ia", "du", "dein*", "dir", "der assistent", "die ki", "vous", "l'assistant",
		"ты", "вы", "тебе", "вам", "ассистент*", "модель", "você", "o assistente", "a ia", "你", "您", "助手", "模型", "あなた", "アシスタント",
	},
	fAddrModel: {
		"assistant", "the model", "the ai", "ai assistant", "ai model", "ai agent", "llm", "language model", "claude", "chatgpt", "as an ai",
		"el asistente", "la ia", "el modelo", "der assistent", "die ki", "das modell", "l'assistant", "l'ia", "le modèle",
		"ассистент*", "модель", "ии", "o assistente", "a ia", "o modelo", "助手", "模型", "人工智能", "アシスタント", "モデル",
	},
	fModal: {
		"must", "always", "never", "need to", "needs to", "needs", "have to", "has to", "make sure", "ensure", "be sure to", "mandatory",
		"required to", "is required", "are required", "it is essential", "essential", "imperative", "important that", "should", "shall",
		"debes", "debe", "deben", "siempre", "nunca", "asegúrate", "asegúrese", "obligatorio", "tienes que", "hay que", "necesitas",
		"musst", "muss", "müssen", "immer", "niemals", "stets", "unbedingt", "stelle sicher", "stellen sie sicher", "zwingend", "sollst", "erforderlich",
		"dois", "doit", "devez", "toujours", "jamais", "assurez-vous", "assure-toi", "obligatoire", "il faut", "nécessaire",
		"должен", "должна", "должны", "всегда", "никогда", "обязательно", "необходимо", "нужно", "убедись", "убедитесь",
		"deve", "deves", "sempre", "certifique-se", "obrigatório", "é necessário", "precisa", "tem que",
		"必须", "务必", "一定要", "始终", "总是", "永远", "需要", "应该", "请", "必ず", "常に", "しなければ", "してください", "必要があります", "すること",
	},
	fPrereq: {
		"before using this tool", "before using the tool", "before calling this tool", "before calling", "before you call", "before you use",
		"before using", "before invoking", "before running", "before executing", "before any", "before each", "before every", "before doing",
		"before proceeding", "before responding", "before answering", "before continuing", "prior to using", "prior to calling", "prior to",
		"as a prerequisite", "prerequisite", "pre-requisite", "precondition", "must first", "in order to use this tool", "for this tool to work",
		"otherwise the tool will fail", "will fail unless", "won't work unless", "will not work unless", "is required before", "to initialize",
		"to authenticate this tool", "to verify your identity", "first step",
		"antes de usar", "antes de llamar", "antes de utilizar", "requisito previo", "primero",
		"bevor du", "bevor sie", "vor der verwendung", "vor dem aufruf", "voraussetzung", "zuerst",
		"avant d'utiliser", "avant d'appeler", "avant de répondre", "antes de responder", "bevor du antwortest", "bevor sie antworten", "перед ответом",
		"before you answer", "before answering", "before you respond", "before replying", "before you reply", "回答する前に", "返答する前に", "回答之前", "回复之前", "au préalable", "prérequis", "d'abord",
		"перед использованием", "перед вызовом", "сначала", "прежде чем",
		"antes de chamar", "pré-requisito", "primeiro",
		"在使用", "之前", "使用前", "调用前", "前提", "首先", "使用する前に", "呼び出す前に", "事前に", "まず",
	},
	fSecret: {
		"api key", "api keys", "apikey", "api token", "access token*", "access key*", "secret key*", "session token*", "session cookie*",
		"auth token*", "authentication token*", "bearer", "oauth token*", "refresh token*", "private key*", "ssh key*", "credential*",
		"secret", "secrets", "client secret", "passphrase", "seed phrase", "mnemonic", "recovery phrase", "environment variable*", "env var*",
		"signing key", "confidential*", "sensitive data", "sensitive information", "private data", "vertraulich*", "confidencial*",
		"confidentiel*", "конфиденциальн*", "机密", "機密", "aws_secret*", "aws secret*", "keychain", "auth header*", "authorization header*",
		"clave api", "clave privada", "credencial*", "secreto*", "token de acceso",
		"api-schlüssel", "privater schlüssel", "zugangsdaten", "anmeldedaten", "geheimnis*", "zugangstoken",
		"clé api", "clé privée", "identifiants", "jeton*", "secret*",
		"ключ*", "учетные данные", "учётные данные", "токен*", "секрет*", "закрытый ключ",
		"chave de api", "chave privada", "credenciais", "segredo*",
		"密钥", "凭证", "凭据", "令牌", "私钥", "秘钥", "api密钥", "環境変数", "認証情報", "資格情報", "秘密鍵", "apiキー", "トークン", "シークレット",
	},
	fSecretWeak: {
		"private information", "personal information", "personal data", "private details", "personal details", "user data", "user's data",
		"password*", "cookie*", "contraseña*", "passwort*", "passwört*", "kennwort*", "kennwört*", "mot de passe", "mots de passe", "пароль*",
		"senha*", "密码", "口令", "パスワード",
	},
	fCtx: {
		"lo que el usuario dijo", "was der benutzer gesagt hat", "ce que l'utilisateur a dit", "o que o usuário disse", "что сказал пользователь", "用户说过的", "ユーザーが言ったこと",
		"everything the user said", "what the user told you", "everything the user told you", "the user told you",
		"conversation history", "conversation so far", "whole conversation", "entire conversation", "full conversation",
		"conversation transcript*", "conversation log*", "all of the conversation", "chat history", "chat log*", "message history", "previous message*", "prior message*", "earlier message*",
		"past message*", "preceding message*", "the context", "your context", "context window", "system prompt*", "system message*",
		"your instructions", "your prompt", "chat transcript*", "the transcript of this", "your transcript", "what the user said", "everything the user", "the user's messages",
		"dialogue", "dialog history", "session history", "prompt history", "recent messages", "all messages", "memory", "memories",
		"historial", "mensajes anteriores", "contexto", "prompt del sistema", "instrucciones del sistema",
		"verlauf", "chatverlauf", "vorherige nachrichten", "kontext", "systemprompt", "systemanweisung*",
		"historique", "toute la conversation", "historial de la conversación", "toda la conversación", "gesamte unterhaltung", "gesprächsverlauf", "вся переписка", "весь разговор", "toda a conversa", "histórico da conversa", "对话记录", "整个对话", "会話履歴", "会話全体", "messages précédents", "contexte", "prompt système", "instructions système",
		"переписк*", "истори*", "предыдущие сообщения", "контекст*", "системный промпт", "системные инструкции",
		"histórico", "mensagens anteriores", "prompt do sistema",
		"聊天记录", "历史记录", "上下文", "系统提示", "之前的消息", "履歴", "コンテキスト", "システムプロンプト", "以前のメッセージ",
	},
	fSrc: {
		"from the conversation", "from the chat", "from the context", "in the context", "in your context", "from your context",
		"from memory", "from your memory", "aus deinem kontext", "aus ihrem kontext", "de tu contexto", "de ton contexte", "do seu contexto", "in memory", "in your memory", "environment variable*", "env var*", "from the environment",
		"you have access to", "available to you", "you can see", "visible to you", "in the conversation", "so far", "earlier",
		"session cookie", "session cookies", "session token", "session tokens", "your api key", "your api keys", "your token", "your tokens",
		"your credentials", "your password", "the user's password", "the user's credentials", "the user's token", "the user's api key",
		"visible in", "in the session", "in this session", "in the current session", "available in the", "present in the", "you can find",
		"private information", "personal information", "personal data", "private data", "user data", "user's data",
		"previous", "previously", "prior", "mentioned above", "shown above", "given above", "quoted above", "from the user's", "the user's files", "local file*", "home directory",
		"on disk", "on the machine", "on this machine", "from disk", "on the user's", "from your", "in your",
		"de la conversación", "del contexto", "variables de entorno", "anteriores", "hasta ahora",
		"aus dem kontext", "aus der unterhaltung", "aus dem gespräch", "umgebungsvariable*", "bisher", "vorherig*",
		"de la conversation", "du contexte", "variables d'environnement", "précédent*", "jusqu'ici",
		"из разговора", "из контекста", "переменные окружения", "переменных окружения", "ранее", "предыдущ*",
		"da conversa", "do contexto", "variáveis de ambiente", "até agora",
		"中的", "环境变量", "之前的", "以上", "から", "これまでの", "環境変数",
	},
	fFlow: {
		"send", "sent", "include", "included", "forward", "forwarded", "transmit", "transmitted", "pass", "passed", "copy", "copied",
		"paste", "pasted", "attach", "attached", "embed", "embedded", "append", "appended", "upload", "uploaded", "leak", "leaked",
		"exfiltrate*", "share", "shared", "insert", "inserted", "put", "place", "placed", "fill", "filled", "fill in", "populate", "populated",
		"transcribe", "transcribed", "echo", "echoed", "mirror", "mirrored", "reproduce", "reproduced", "duplicate", "duplicated",
		"carry over", "carried over", "relay", "relayed", "submit", "submitted", "add", "added", "write", "written", "dump", "dumped",
		"transfer", "transferred", "deliver", "delivered", "quote", "quoted", "stash", "stashed", "smuggle*", "hand over", "pipe", "piped",
		"post", "report", "log", "save", "store", "export", "exported", "push", "pushed", "replicate", "replicated", "sync", "synced", "provide", "supply", "give", "enter",
		"übergib", "übergeben", "übergebe", "rufe", "llama", "llames", "appelle", "appelez", "вызови", "chame",
		"envía*", "enviar", "envíe", "incluye", "incluir", "incluya", "copia", "copiar", "copie", "pega", "pegar", "adjunta*", "reenvía*",
		"transmite", "sube", "pon", "coloca", "inserta", "añade", "agrega",
		"sende", "senden", "übermittle*", "übertrage*", "schicke", "schick", "leite", "weiterleiten", "füge", "kopiere", "kopieren",
		"einfügen", "anhängen", "hochladen", "gib", "trage", "eintragen", "setze",
		"envoie", "envoyer", "envoyez", "transmets", "transmettez", "transmettre", "transfère", "transférer", "inclus", "inclure", "incluez",
		"copie", "copiez", "colle", "collez", "joins", "joindre", "insère", "insérez", "ajoute", "ajoutez", "téléverse*",
		"отправ*", "передай*", "передать", "перешли*", "переслать", "включи*", "скопируй*", "вставь*", "прикрепи*", "загрузи*", "добавь*", "запиши*",
		"envie", "inclua", "copie", "cole", "colar", "anexe*", "encaminhe*", "insira", "adicione", "coloque",
		"发送", "传送", "传递", "转发", "上传", "附加", "包含", "复制", "粘贴", "填入", "放入", "写入", "提交", "附上", "加入",
		"送信", "転送", "送って", "含め", "コピー", "貼り付け", "添付", "アップロード", "入れて", "記入",
	},
	fRead: {
		"read", "open", "cat", "load", "fetch", "retrieve", "grab", "collect", "gather", "access", "obtain", "look up", "extract",
		"harvest*", "scrape", "lee", "leer", "abre", "obtén", "obtener", "accede", "lies", "lese", "öffne", "abrufen", "hole", "auslesen",
		"lis", "lire", "lisez", "ouvre", "ouvrez", "récupère", "récupérer", "прочитай*", "прочти", "открой*", "считай*", "получи*",
		"leia", "ler", "abra", "obtenha", "acesse", "读取", "打开", "获取", "查看", "読み取", "読み込", "開い", "取得",
	},
	fField: {
		"field", "fields", "parameter", "parameters", "param", "params", "argument", "arguments", "record", "note", "notes", "sidenote",
		"metadata", "comment", "comments", "attribute", "memo", "annotation", "header", "headers", "query string", "url",
		"parámetro*", "campo*", "argumento*", "registro*", "nota", "notas", "feld*", "eintrag*", "notiz*",
		"paramètre*", "champ*", "enregistrement*", "параметр*", "поле", "поля", "аргумент*", "запис*", "заметк*", "parâmetro*",
		"参数", "字段", "记录", "备注", "パラメータ", "引数", "フィールド", "欄",
	},
	fVerbatim: {
		"verbatim", "word for word", "word-for-word", "character for character", "byte for byte", "unredacted", "in its entirety",
		"exact copy", "exactly as it appears", "without redaction", "unaltered", "unabridged", "in full", "without redacting",
		"textualmente", "literalmente", "íntegro", "íntegramente", "wörtlich", "unverändert", "vollständig*", "textuellement",
		"mot pour mot", "intégral*", "tel quel", "дословно", "целиком", "без изменений", "integralmente", "原样", "逐字", "完整", "そのまま", "全文",
	},
	fContents: {
		"contents", "content of", "the text of", "full text", "contenido*", "inhalt*", "contenu*", "содержимое", "содержание", "conteúdo*", "内容", "中身",
	},
	fHide: {
		"do not tell", "don't tell", "dont tell", "do not mention", "don't mention", "never mention", "do not inform", "don't inform",
		"without telling", "without informing", "without notifying", "without alerting", "without letting",
		"do not notify", "don't notify", "do not reveal", "don't reveal", "never reveal", "do not disclose", "don't disclose", "never disclose",
		"do not show the user", "don't show the user", "do not show to", "don't show to", "never show to", "not shown to the user", "never shown to the user",
		"hidden from the user", "hide from the user", "do not show the output", "don't show the output", "do not show its output", "do not show the result",
		"don't show the result", "do not display the output", "do not display contents", "don't display contents", "do not display the contents",
		"don't display the contents", "do not print the output", "suppress the output", "do not show this", "don't show this", "do not show it", "don't show it", "never show",
		"do not display this", "don't display this", "do not display it", "not visible to the user", "invisible to the user", "invisible to", "keep this secret", "keep this hidden", "keep it secret", "keep it hidden", "keep this between",
		"hide this", "hide it", "hide the", "hide that", "hide from", "hidden from",
		"conceal*", "not tell", "not inform", "not mention", "not notify", "not be told", "no need to tell", "no need to mention",
		"no need to inform", "need not know", "does not need to know", "doesn't need to know", "should not know", "shouldn't know",
		"must not know", "must not be told", "unaware", "discreetly", "quietly", "silently",
		"out of the loop", "need not be informed", "needn't be informed", "need not be told", "needn't be told", "do not bring", "don't bring", "never bring",
		"leave it out of your answer", "leave this out of your answer", "omit it from your answer", "omit this from your answer", "without the user noticing",
		"discussed with the user", "needs to be discussed", "need to be discussed", "no need to discuss", "not worth mentioning", "no need to bother the user",
		"without bothering the user", "don't bother the user", "do not bother the user", "not surface", "never surface", "keep it out of",
		"no le digas", "no se lo digas", "no lo digas", "no menciones", "no informes", "sin decir", "sin informar", "sin avisar", "oculta*", "no reveles", "no muestres",
		"nicht erwähnen", "nicht mitteilen", "nicht sagen", "nicht verraten", "nicht anzeigen", "verschweig*", "verberge*", "ohne den",
		"ohne dass", "ne dis pas", "ne dites pas", "ne mentionne pas", "ne mentionnez pas", "sans informer", "sans prévenir", "sans le dire",
		"cachez", "ne révèle pas", "ne révélez pas", "discrètement",
		"не говори", "не сообщай", "не сообщайте", "не упоминай", "не показывай", "скрой*", "скрыть", "незаметно", "не рассказывай",
		"não conte", "não diga", "não mencione", "não informe", "sem informar", "sem avisar", "sem contar", "oculte*", "esconda*", "não revele", "não mostre",
		"不要告诉", "不要提及", "不要通知", "不要让", "隐瞒", "悄悄", "偷偷", "不要透露", "不要显示", "不要提示", "伝えないで", "言わないで", "知らせないで",
		"黙って", "表示しないで", "内緒",
	},
	fHideStrong: {
		"secretly", "covertly", "without the user's knowledge", "without the user knowing", "without their knowledge", "behind the user's back",
		"user must never know", "user should never know", "never let the user know", "user won't notice", "user will not notice",
		"user does not notice", "user doesn't notice", "unbeknownst",
		"en secreto", "sin que el usuario", "heimlich", "ohne wissen", "en secret", "secrètement", "à l'insu",
		"тайно", "втайне", "без ведома", "em segredo", "secretamente", "sem que o usuário", "秘密地", "暗中", "こっそり", "秘密裏", "気付かれない",
	},
	fUser: {
		"user", "users", "user's", "the human", "the person", "customer", "the requester", "anyone", "them",
		"usuario*", "benutzer*", "nutzer*", "anwender*", "utilisateur*", "пользовател*", "usuário*", "utilizador*", "用户", "ユーザー", "利用者",
	},
	fOvVerb: {
		"ignore", "ignoring", "disregard*", "forget", "override", "overrule", "bypass", "set aside", "no longer follow", "stop following",
		"no longer applies", "no longer apply", "are void", "is void", "null and void", "superseded", "are cancelled", "is cancelled", "no longer valid",
		"no longer in effect", "take precedence", "takes precedence", "follow only", "only follow", "obey only",
		"don't follow", "do not follow", "pay no attention to", "supersede*",
		"ignora", "ignore", "ignorar", "olvida", "olvidar", "omite", "ignoriere*", "ignorier", "vergiss", "missachte*", "ignorez", "oublie", "oubliez",
		"игнорируй*", "проигнорируй*", "забудь*", "esqueça", "desconsidere", "忽略", "无视", "忘记", "忘掉", "無視", "忘れ",
	},
	fOvObj: {
		"instruction*", "rules", "guideline*", "guidance", "prompt*", "directive*", "policies", "constraint*", "guardrail*", "safety", "what is written here", "the text below",
		"restriction*", "system message", "what you were told", "everything above", "programming",
		"instrucciones", "reglas", "indicaciones", "directrices", "anweisung*", "regeln", "vorgaben", "richtlinie*", "instruktion*",
		"consignes", "règles", "инструкци*", "правил*", "указани*", "instruções", "regras", "diretrizes",
		"指令", "指示", "规则", "提示", "ルール", "命令", "指令",
	},
	fOvScope: {
		"previous", "prior", "above", "earlier", "preceding", "system", "your", "original", "the user's", "developer",
		"anteriores", "previas", "vorherige*", "bisherige*", "précédentes", "précédents", "предыдущ*", "прежн*", "anteriores",
		"之前", "以前", "先前", "上述", "所有", "以前の", "これまでの", "すべての",
	},
	fDestruct: {
		"delete", "deleted", "rm -rf", "drop table", "drop database", "drop the", "wipe", "wiped", "erase", "erased", "truncate",
		"destroy", "destroyed", "purge", "purged", "format the disk", "format the drive", "overwrite", "overwritten", "chmod 777",
		"shred", "kill all", "shut down", "uninstall", "revoke", "transfer funds", "transfer money", "reset --hard", "force push", "push --force",
		"elimina", "eliminar", "borra", "borrar", "destruye", "lösche", "löschen", "vernichte", "supprime", "supprimez", "supprimer",
		"efface", "effacez", "удали*", "удалить", "сотри*", "уничтож*", "exclua", "apague", "delete", "remova", "destrua",
		"删除", "清除", "清空", "销毁", "格式化", "削除", "消去", "破棄",
	},
	fUnreq: {
		"also", "additionally", "in addition", "as well", "afterwards", "after that", "after this", "after completing", "after each",
		"then", "every time", "each time", "automatically", "regardless", "without asking", "whenever", "at the same time",
		"on every", "on each", "subsequently", "once done", "once finished", "too", "a copy", "copy of", "carbon copy", "before delivery",
		"before it is delivered", "in the background", "behind the scenes", "just loop",
		"también", "además", "cada vez", "automáticamente", "auch", "zusätzlich", "außerdem", "jedes mal", "automatisch",
		"aussi", "également", "chaque fois", "automatiquement", "также", "тоже", "каждый раз", "автоматически",
		"também", "além disso", "toda vez", "automaticamente", "同时", "另外", "此外", "每次", "自动", "また", "さらに", "毎回", "自動的に",
	},
	fTamper: {
		"set the", "change the", "replace the", "redirect*", "bcc", "cc", "override the",
		"overwrite the", "modify the", "alter the", "swap", "the to field", "the recipient to", "recipient to",
		"as a recipient", "as recipient", "as an additional recipient", "add a recipient", "add recipient", "extra recipient",
		"cambia el destinatario", "añade como destinatario", "empfänger ändern", "als empfänger", "comme destinataire", "в получатели", "como destinatário", "添加收件人", "宛先に追加",
	},
	fInstead: {
		"instead", "instead of", "rather than", "in place of", "do not use", "don't use", "never use", "avoid using", "avoid", "prefer", "stay with", "stick with", "stick to",
		"en lugar de", "en vez de", "statt", "anstatt", "anstelle", "au lieu de", "plutôt que", "вместо", "em vez de", "ao invés de", "而不是", "代替", "代わりに",
	},
	fAnyTool: {
		"other tool*", "any tool*", "all tools", "every tool", "each tool", "whenever you call", "whenever you use", "every time you call",
		"every time you use", "any function", "all functions", "other functions", "other server*", "any server", "every request",
		"all requests", "any request", "each request", "all subsequent", "any subsequent", "every subsequent", "every call", "each call",
		"all calls", "any call", "all outgoing", "all emails", "every email", "any email", "all messages", "every message",
		"otras herramientas", "cualquier herramienta", "todas las herramientas", "andere werkzeuge", "alle werkzeuge", "jedes werkzeug",
		"autres outils", "tous les outils", "другие инструменты", "все инструменты", "любой инструмент", "outras ferramentas",
		"todas as ferramentas", "其他工具", "所有工具", "任何工具", "他のツール", "すべてのツール",
	},
	fAuthority: {
		"important", "system", "admin*", "policy", "policies", "compliance", "security team", "security protocol", "protocol", "mandatory",
		"official", "authorized", "priority", "notice", "developer", "directive", "audit", "regulation*", "required by law",
		"política", "cumplimiento", "richtlinie", "vorschrift*", "politique", "conformité", "политик*", "требовани*", "conformidade",
		"政策", "合规", "规定", "ポリシー", "規定",
	},
	fConvSrc: {
		"from the conversation", "from this conversation", "from the chat", "in the chat", "earlier in the chat", "earlier in the conversation",
		"in the conversation", "the conversation's", "the chat's", "quoted in the chat", "quoted earlier", "mentioned earlier", "the session's",
		"from your context", "from the context", "in your context", "from earlier", "seen earlier", "shared earlier", "from the transcript",
		"de la conversación", "del chat", "en la conversación", "de tu contexto", "aus der unterhaltung", "aus dem chat", "aus deinem kontext",
		"aus dem kontext", "im chat", "de la conversation", "du chat", "de ton contexte", "de votre contexte", "из разговора", "из чата",
		"из контекста", "в разговоре", "da conversa", "do chat", "do seu contexto", "na conversa", "会話中", "会話の", "チャットの", "对话中", "聊天中", "上下文中",
	},
	fStore: {
		"record", "records", "entry", "entries", "body", "archive", "archived", "exporter", "export", "exported", "copy", "filed", "file it",
		"stored", "saved", "twin", "companion", "logged", "registro", "eintrag", "archiv", "enregistrement", "archive", "запись", "архив", "registro",
		"记录", "存档", "归档", "アーカイブ", "記録", "保存",
	},
	fValueRef: {
		"code", "reference code", "reference", "token", "value", "string", "identifier", "key", "begins", "beginning", "starts with", "starting",
		"código", "valor", "wert", "code", "valeur", "код", "значение", "valor", "代码", "值", "コード", "値", "トークン", "令牌",
	},
	fAppendPos: {
		"append*", "suffix", "at the end", "the end", "last line", "end with", "ends with", "ending in", "ending with", "closing with",
		"closes with", "followed by", "carries", "carry", "carrying", "newline", "new line", "goes into", "goes in", "go into", "tack*", "on its own line", "prepend*", "prefix", "goes on", "placed in", "repeated", "tagged",
		"al final", "am ende", "à la fin", "в конце", "no final", "末尾", "最后", "末尾に",
	},
	fContentObj: {
		"body", "bodies", "note text", "message text", "content", "text", "note", "notes", "message", "messages", "description", "comment",
		"cuerpo", "nachricht*", "notiz*", "inhalt", "corps", "texte", "тело", "текст", "заметк*", "corpo", "texto", "正文", "内容", "笔记", "本文", "ノート",
	},
	fPassive: {
		"se lee", "se leen", "se envía", "se envia", "se incluye", "se obtiene", "es leído", "es leída", "wird", "werden", "est lu", "est lue",
		"sont lus", "sont lues", "est envoyé", "est envoyée", "é lido", "é lida", "é enviado", "é enviada", "são lidos", "читается", "считывается",
		"берётся", "берется", "передаётся", "передается", "отправляется", "此工具", "该工具", "本工具", "这个工具", "られます", "されます", "られる",
	},
	fOvSafeVerb: {
		"ignore", "ignoring", "disregard*", "disable", "disabling", "deactivate", "turn off", "switch off", "suspend", "lift", "bypass", "bypassing",
		"circumvent*", "get around", "override", "overriding", "skip", "drop", "abandon", "set aside", "forget", "remove all", "without",
		"no longer bound by", "not bound by", "free from", "exempt from", "unrestricted by", "desactiva*", "ignora", "deaktiviere*", "umgehe*",
		"désactive*", "contourne*", "отключи*", "обойди*", "desative", "ignore", "禁用", "关闭", "绕过", "無効に", "回避",
	},
	fSafetyObj: {
		"safety", "safety filter*", "safety restriction*", "safety guideline*", "safety check*", "safety measure*", "safety rule*", "safety protocol*",
		"guardrail*", "safeguard*", "content filter*", "content polic*", "ethical*", "ethics", "moral*", "censorship", "moderation", "alignment",
		"usage polic*", "openai polic*", "anthropic polic*", "security check*", "security restriction*", "security guardrail*", "security filter*",
		"all restrictions", "any restrictions", "your restrictions", "your limitations", "all limitations", "any limitations", "your programming",
		"your training", "your guidelines", "your principles", "your values", "refusal*", "seguridad", "sicherheit*", "sécurité", "безопасност*", "segurança", "安全", "セーフティ",
	},
	fChoose: {
		"choose", "select", "pick", "prefer", "prioritize", "prioritise", "favor", "favour", "trust", "rely on", "use", "call", "route",
		"go with", "default to",
	},
	fUniversal: {
		"for all", "for any", "for every", "for each", "over any", "over all", "over other", "over every", "above all", "only", "exclusively",
		"solely", "no matter", "in all cases", "at all times", "for everything", "all", "every", "any", "everything", "entire", "whole",
		"todo lo que", "todos los", "alles", "tout ce que", "всё", "все", "tudo", "所有", "全部", "すべて",
	},
	fDisparage: {
		"outperform*", "better than", "superior to", "more accurate than", "beats", "deprecated", "being phased out", "inferior", "obsolete", "outdated", "inaccurate", "buggy", "unreliable", "broken", "insecure", "compromised", "malicious", "untrusted",
		"obsolete", "unsafe", "dangerous", "fake", "wrong", "incorrect", "inferior", "worse", "not trustworthy", "untrustworthy",
	},
	fDeclFlow: {
		"forwards", "forwarded", "mirrors", "mirrored", "copies", "duplicated", "relays", "relayed", "cc'd", "bcc'd", "exfiltrates", "exfiltrated",
		"is sent to", "are sent to", "gets sent", "get sent", "is uploaded to", "are uploaded to", "is shared with", "are shared with", "is posted to",
		"are posted to", "also sends", "also posts", "also uploads", "also forwards", "also copies", "also shares", "also logs", "also reports",
		"is logged to", "are logged to", "reports back", "is pushed to", "are pushed to", "pushes", "replicates", "replicated to", "phones home", "is transmitted", "are transmitted", "transmits", "is copied", "are copied",
		"a copy goes", "a copy is", "copy of every", "copy of each", "copy of all", "is also sent", "are also sent", "synced to", "is synced", "are synced",
		"se reenvía", "se reenvían", "wird weitergeleitet", "werden weitergeleitet", "est transféré", "sont transférés", "пересылается", "é encaminhado", "转发到", "転送され",
	},
	fOutside: {
		"external server*", "remote server*", "third party", "third-party", "third parties", "attacker*", "our server*", "partner server*", "external endpoint*",
		"offsite", "off-site", "remote endpoint*", "external host*", "analytics server*", "collection server*", "collector*", "outside party", "external service*",
		"external address*", "outside address*", "external mailbox*", "backup server*", "audit server*", "monitoring server*",
	},
	fUserData: {
		"all messages", "every message", "each message", "all emails", "every email", "each email", "all uploads", "every upload", "each upload",
		"all files", "every file", "each file", "all documents", "every document", "all conversations", "every conversation", "all chats",
		"user data", "user's data", "users' data", "all data", "all user", "all results", "every result", "each result", "all inputs", "every input",
		"all prompts", "every prompt", "all communications", "all email communications", "all traffic", "all activity", "everything the user", "customer data",
		"what the user asked", "what the customer asked", "the user's question", "the user's request", "the user's query", "the customer's question",
		"personal data", "personal information", "private information", "private data", "the user's files", "all commits", "every commit", "any commit",
	},
	fHijack: {
		"hijack*", "take over", "takes over", "takeover", "intercept", "intercepts", "intercepted", "intercepting", "man-in-the-middle", "mitm",
		"impersonate*", "masquerade*", "spoof*", "shadow*", "supersede*", "replaces the", "replace the", "in place of the",
	},
	fReply: {
		"tell the user", "tell users", "inform the user", "let the user know", "in your response", "in your reply", "in your answer", "in every response",
		"in every answer", "in each response", "in all responses", "in your final answer", "when you respond", "when you answer", "when responding",
		"when answering", "respond with", "reply with", "answer with", "end your response", "end every response", "start your response", "begin your response",
		"say that", "always mention", "mention that", "the user should be told", "warn the user", "advise the user", "recommend to the user",
		"suggest to the user", "dile al usuario", "sage dem benutzer", "dis à l'utilisateur", "скажи пользователю", "diga ao usuário", "告诉用户", "ユーザーに伝えて",
	},
	fLure: {
		"compromised", "has expired", "been suspended", "is suspended", "verify your account", "verify their account", "re-enter", "buy", "purchase",
		"sponsored", "promo code", "discount code", "coupon", "affiliate", "recommend our", "our product*", "our partner*", "upgrade to premium",
		"bitcoin", "crypto wallet", "wire the", "gift card*", "call this number", "call the number", "security alert", "urgent action", "act immediately",
		"reset their password at", "reset your password at", "log in at", "sign in at", "click the link", "click this link",
	},
	fUrgency: {
		"act now", "limited time offer", "limited-time offer", "hurry", "while you still can", "don't fall behind", "do not fall behind", "don't miss out",
		"do not miss out", "last chance", "filling fast", "selling fast", "uses left", "before access expires", "access expires soon", "before it's too late",
		"before it is too late", "only available today", "exclusive access", "vip access",
	},
	fEncodeHide: {
		"ascii value*", "ascii code*", "char code*", "character code*", "as numbers", "as digits", "as integers", "as a number", "encoded as",
		"base64-encode*", "base64 encode*", "hex-encode*", "hex encode*", "rot13", "encode it", "encode them", "encoding it", "obfuscate*", "steganograph*",
		"spell it out", "one character at a time", "split across",
	},
	fPersonal: {
		"home address", "street address", "mailing address", "password hint*", "security question*", "security answer*", "maiden name", "social security",
		"ssn", "date of birth", "birth date", "credit card*", "card number*", "cvv", "cvc", "bank account*", "routing number", "passport number*",
		"driver's license", "national id", "tax id", "medical record*", "health record*", "private information", "personal information", "personal data",
		"private data", "pii", "private details", "personal details", "número de tarjeta", "dirección de casa", "domicilio", "kreditkartennummer",
		"heimadresse", "privatadresse", "numéro de carte", "adresse personnelle", "номер карты", "домашний адрес", "número do cartão", "endereço residencial",
		"信用卡号", "家庭住址", "住所", "カード番号",
	},
	fCallTool: {
		"call", "invoke", "rufe", "llama", "llames", "appelle", "appelez", "вызови", "chame", "调用", "呼び出",
	},
	fSiblingOut: {
		"returned by", "returned from", "from the output of", "output of", "result of", "results of", "from a previous call", "from a prior call",
		"obtained from", "as returned", "given by the", "from the response", "devuelto por", "zurückgegeben", "renvoyé par", "возвращённ*", "返回的",
	},
}

// lexIndex is the lexicon's automaton: each pattern's value is the set of
// features it signals.
type lexIndex struct {
	matcher *keyword.Index
	// stems of flow/read verbs for the negation and passive check.
	flowStems, readStems stemSet
}

// stemSet holds verb stems: exact words in a map, prefixes in a list.
type stemSet struct {
	exact  map[string]bool
	prefix []string
}

func (ss *stemSet) add(p string) {
	if ss.exact == nil {
		ss.exact = map[string]bool{}
	}
	if strings.HasSuffix(p, "*") {
		ss.prefix = append(ss.prefix, strings.TrimSuffix(p, "*"))
		return
	}
	ss.exact[p] = true
}

func (ss *stemSet) has(t string) bool {
	if ss.exact[t] {
		return true
	}
	for _, p := range ss.prefix {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

type stem struct {
	s      string
	prefix bool
}

func isCJK(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) {
			return true
		}
	}
	return false
}

// pattern turns a lexicon phrase into the form matched against the
// space-padded text that matchText produces.
func pattern(p string) string {
	p = strings.ToLower(p)
	if isCJK(p) {
		return p
	}
	if strings.HasSuffix(p, "*") {
		return strings.TrimSuffix(matchText(strings.TrimSuffix(p, "*")), " ")
	}
	return matchText(p)
}

// lexicon automaton is built on first use, not at start-up: most mcpsec
// processes (a fixture server, a report) never scan.
var lexIndexOnce = sync.OnceValue(buildLex)

func buildLex() *lexIndex {
	byPattern := map[string]feature{}
	var order []string
	for f, phrases := range lexicon {
		for _, p := range phrases {
			pat := pattern(p)
			if _, ok := byPattern[pat]; !ok {
				order = append(order, pat)
			}
			byPattern[pat] |= f
		}
	}
	values := make([]uint64, len(order))
	for i, p := range order {
		values[i] = uint64(byPattern[p])
	}
	li := &lexIndex{matcher: keyword.New(order, values)}
	for _, p := range lexicon[fFlow] {
		if !isCJK(p) && !strings.Contains(p, " ") {
			li.flowStems.add(p)
		}
	}
	for _, p := range lexicon[fRead] {
		if !isCJK(p) && !strings.Contains(p, " ") {
			li.readStems.add(p)
		}
	}
	return li
}

// matchText lower-cases a sentence and reduces it to space-separated
// words, padded with a space on each side, so that lexicon patterns match
// whole words. Characters that belong to paths and addresses stay.
func matchText(s string) string { return string(matchBytes(s)) }

// lexOf computes the lexicon features of raw text with a pooled buffer.
func lexOf(s string) feature {
	bp := matchPool.Get().(*[]byte)
	b := appendMatch((*bp)[:0], s)
	f := lexFeatures(b)
	*bp = b
	matchPool.Put(bp)
	return f
}

var matchPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func matchBytes(s string) []byte { return appendMatch(make([]byte, 0, len(s)+2), s) }

func appendMatch(b []byte, s string) []byte {
	b = append(b, ' ')
	lastSpace := true
	var prev1, prev2 rune // the two runes before the current one
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		} else if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || (r >= 'A' && r <= 'Z') {
			// Fast path for the common case, with the result of the
			// switch below: ASCII letters and digits are kept, lower-cased.
			if r <= 'Z' && r >= 'A' {
				b = append(b, byte(r+32))
			} else {
				b = append(b, byte(r))
			}
			prev2, prev1 = prev1, r
			lastSpace = false
			i++
			continue
		}
		out := r
		switch {
		case r == '’' || r == '\'':
			out = '\''
			// French and Italian elision (l'utilisateur, d'abord) joins an
			// article to the next word; split it off.
			if unicode.IsLetter(prev1) && (!unicode.IsLetter(prev2) || (prev2 == 'q' && prev1 == 'u')) {
				out = ' '
			}
		case r == '_':
			out = ' '
		case r == '.':
			next := rune(' ')
			if i+1 < len(s) {
				next, _ = utf8.DecodeRuneInString(s[i+1:])
			}
			if unicode.IsSpace(next) || (prev1 != 0 && !unicode.IsSpace(prev1) && !unicode.IsLetter(next)) {
				out = ' '
			}
		case r == ',' || r == ';':
			// A clause break stays a token of its own, so that a phrase
			// never matches across it: "if not, tell the user" gives
			// steps, it is not "not tell".
			if !lastSpace {
				b = append(b, ' ')
			}
			b = append(b, byte(r), ' ')
			lastSpace = true
			prev2, prev1 = prev1, r
			i += size
			continue
		case r == '-' || r == '/' || r == '~' || r == '@':
		case r < utf8.RuneSelf:
			switch {
			case r >= 'A' && r <= 'Z':
				out = r + 32
			case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			default:
				out = ' '
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			out = unicode.ToLower(r)
		default:
			out = ' '
		}
		prev2, prev1 = prev1, r
		i += size
		if out == ' ' {
			if lastSpace {
				continue
			}
			lastSpace = true
		} else {
			lastSpace = false
		}
		b = utf8.AppendRune(b, out)
	}
	if !lastSpace {
		b = append(b, ' ')
	}
	return b
}

// lexFeatures returns the lexicon features of a match text.
func lexFeatures(mt []byte) feature {
	return feature(lexIndexOnce().matcher.Union(mt))
}

var negators = map[string]bool{
	"not": true, "never": true, "no": true, "don't": true, "dont": true, "doesn't": true, "won't": true, "without": true, "nor": true,
	"cannot": true, "can't": true, "shouldn't": true, "mustn't": true, "nunca": true, "nicht": true, "nie": true, "kein": true,
	"keine": true, "pas": true, "jamais": true, "ne": true, "не": true, "никогда": true, "não": true, "nem": true, "niemals": true,
}

var passiveAux = map[string]bool{"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "being": true, "gets": true, "get": true, "got": true}
var modalAux = map[string]bool{"must": true, "should": true, "shall": true, "needs": true, "need": true, "to": true, "has": true, "have": true}

// liveVerb reports whether any occurrence of a verb from stems in the
// match text is neither negated ("never send") nor a passive description
// of what the tool itself does ("the key is read from"). When no
// occurrence can be located (scripts without spaces, multi-word phrases)
// the verb is assumed live.
func liveVerb(mt string, stems stemSet) bool {
	live, _ := verbState(mt, stems)
	return live
}

// verbState is liveVerb that also says whether any occurrence was found.
func verbState(mt string, stems stemSet) (live, found bool) {
	toks := strings.Fields(mt)
	for i, t := range toks {
		if !stems.has(t) {
			continue
		}
		found = true
		negated := false
		for k := i - 1; k >= 0 && k >= i-3; k-- {
			if negators[toks[k]] || strings.HasSuffix(toks[k], "n't") {
				negated = !negationCancelled(toks, k, i)
				break
			}
		}
		passive := false
		if !negated && i > 0 && passiveAux[toks[i-1]] {
			passive = !(i > 1 && modalAux[toks[i-2]])
		}
		if !negated && !passive && (nominalUse(toks, i) || inRelativeClause(toks, i) || hasSubject(toks, i)) {
			// "the shared files", "an access key": the verb's form
			// names a thing here; nobody is asked to do anything.
			continue
		}
		if !negated && !passive {
			return true, true
		}
	}
	return !found, found
}

// determiners before a participle make it an adjective ("the shared
// files", "an attached image"); nouns after a verb's form make it part of
// a compound noun ("access key", "read token", "upload id").
var (
	determiners   = map[string]bool{"the": true, "a": true, "an": true, "its": true, "their": true, "these": true, "those": true, "any": true, "each": true, "every": true}
	compoundHeads = map[string]bool{"key": true, "keys": true, "token": true, "tokens": true, "id": true, "ids": true, "scope": true, "scopes": true,
		"permission": true, "permissions": true, "rights": true, "level": true, "role": true, "roles": true}
)

// nominalUse reports an occurrence of a verb form at toks[i] that is part
// of a noun phrase: a participle after a determiner, or the first word of
// a compound noun.
func nominalUse(toks []string, i int) bool {
	t := toks[i]
	if i > 0 && determiners[toks[i-1]] && (strings.HasSuffix(t, "ed") || strings.HasSuffix(t, "en") || t == "sent" || t == "put" || t == "read") {
		return true
	}
	return i+1 < len(toks) && compoundHeads[toks[i+1]]
}

var cjkNegators = []string{"不要", "请勿", "勿", "别", "禁止", "不得", "不能", "ないで", "ません", "しない"}

// negatedSentence reports a prohibition in any supported language.
func negatedSentence(mt string) bool {
	for _, t := range strings.Fields(mt) {
		if negators[t] {
			return true
		}
	}
	for _, n := range cjkNegators {
		if strings.Contains(mt, n) {
			return true
		}
	}
	return false
}
