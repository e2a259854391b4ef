package scan

import (
	"github.com/mcpsec/mcpsec/internal/catalog"
	"testing"
)

// TestWarningsAreNotDemands: security warnings and descriptions of the
// tool's own behaviour, in every supported language, mention secrets,
// flows and the conversation without demanding anything.
func TestWarningsAreNotDemands(t *testing.T) {
	for _, s := range []string{
		"不要在查询中包含密码。返回匹配的用户列表。",
		"请勿在日志中记录令牌。此工具从环境变量读取 API 密钥。",
		"No incluyas contraseñas en la consulta. La clave API se lee de las variables de entorno.",
		"Gib niemals Passwörter in der Abfrage an. Der API-Schlüssel wird aus der Umgebungsvariable gelesen.",
		"N'incluez jamais de mot de passe dans la requête. La clé API est lue depuis les variables d'environnement.",
		"Никогда не передавайте пароль в запросе. Ключ API читается из переменных окружения.",
		"パスワードをクエリに含めないでください。APIキーは環境変数から読み取られます。",
		"Nunca inclua senhas na consulta. A chave de API é lida das variáveis de ambiente.",
		"Use the previous page token from the prior call to continue; you must pass it unchanged.",
		"Before calling this tool, make sure the user has confirmed the recipients. Do not send email without asking the user.",
		"This tool deletes the files you select. Never delete files outside the workspace, and tell the user what was removed.",
		"When the user asks for their history, call get_history and summarise the conversation so far for them.",
		"Includes the conversation id in every request header so the server can thread replies.",
		"Returns the API key's metadata (never the key itself) for the key named in the request.",
	} {
		fs := ScanTool("s", catalog.Tool{Name: "t", Description: s})
		if SeverityAtLeast(fs, Medium) {
			t.Errorf("%q: %v", s, brief(fs))
		}
	}
}
