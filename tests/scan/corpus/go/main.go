package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	_ "github.com/lib/pq"
	"github.com/sendgrid/sendgrid-go"
	"github.com/slack-go/slack"
)

const (
	defaultDSN    = "postgres://reporter:k8CSQwfSgdA5PVob@db-replica.internal:5432/billing?sslmode=require"
	sendgridKey   = "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"
	slackBotToken = "xoxb-445559836912-8688215305886-dCCMuzkG6DG2Q8jhZdJAbMcs"
	buildCommit   = "72b1ba276228707003c28c0932749494e16bc0eb"
)

type Config struct {
	DSN      string
	Password string `json:"password"`
	Token    string `json:"token,omitempty"`
	Timeout  time.Duration
}

func loadConfig() Config {
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		dsn = defaultDSN
	}
	return Config{DSN: dsn, Password: os.Getenv("REPORTER_PASSWORD"), Token: os.Getenv("API_TOKEN"), Timeout: 5 * time.Second}
}

func login(w http.ResponseWriter, r *http.Request) {
	password := r.FormValue("password")
	if len(password) < 12 {
		http.Error(w, "password too short", http.StatusBadRequest)
		return
	}
	fmt.Fprintln(w, "ok")
}

func main() {
	cfg := loadConfig()
	db, err := sql.Open("postgres", cfg.DSN)
	if err != nil {
		log.Fatalf("open: %v", err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		log.Fatalf("ping: %v", err)
	}
	mail := sendgrid.NewSendClient(sendgridKey)
	_ = mail
	api := slack.New(slackBotToken)
	_, _, _ = api.PostMessage("C0A23C66DA", slack.MsgOptionText("reporter started "+buildCommit[:7], false))
	http.HandleFunc("/login", login)
	log.Fatal(http.ListenAndServe("0.0.0.0:8080", nil))
}
