cd ~/src/billing
git status
git pull --rebase
export GITHUB_TOKEN=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
gh auth status
gh pr list --author @me
curl -s -H "Authorization: token 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" https://api.github.com/user/repos | jq '.[].full_name'
docker login -u deploy --password Wint3r-is-c0ming! registry.acme-corp.net
echo "$CR_PAT" | docker login ghcr.io -u octocat --password-stdin
python -m venv .venv && . .venv/bin/activate
pip install -r requirements.txt
huggingface-cli login --token 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
npm config set //registry.npmjs.org/:_authToken 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
python -m build
twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcCJGI4ODlhZThhLWMyYTUtNGRmZC04YTZmLTdhNDQ0YjllODQ5OAACL1sxLFsidXNlciIsImFmYzRlMDY2MmZmY2NhNWYxNTgxM2RkZTM2ZTkxYTdlIl1dAAAGID2ApCQAz4Yty13ZfU5GwuZD249FpYMIX6XUKQKTVvRS dist/*
poetry config pypi-token.testpypi pypi-AgENdGVzdC5weXBpLm9yZwIkNGMzMWUwNWUtZjI4Ny00MDcxLWE3YTEtMGYwMTMwNmQ0MWE0AAIvWzEsWyJ1c2VyIiwiMDBmOTgzNWZmNTBjNjQyODJmOGNkZjA2NzZlNTg4Y2UiXV0AAAYg56yxOldL2xMNoAo28sgrZEMbBwMNBQFQ0L6OePXkrks
psql "postgresql://admin:pg-Adm1n-2024@10.20.0.5:5432/billing"
mysql -h db.internal -u root --password=r00t-Pa55 billing < dump.sql
ssh deploy@203.0.113.10
ssh -i ~/.ssh/id_ed25519 ubuntu@210.194.155.208
scp backup.tar.gz ubuntu@119.118.83.203:/srv/backups/
export AWS_ACCESS_KEY_ID=AKIA2K3PTF7F3UWQTXFE
export AWS_SECRET_ACCESS_KEY=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
aws s3 ls s3://acme-billing-invoices --region eu-west-1
aws sts get-caller-identity
kubectl -n billing get secret billing-secrets -o jsonpath='{.data.DB_PASSWORD}' | base64 -d
kubectl -n billing rollout restart deployment/billing-api
git clone https://oauth2:glpat-gtPPCnAfyP-W_1JFWvd5@gitlab.acme-corp.net/billing/worker.git
curl -X POST -H 'Content-type: application/json' --data '{"text":"deploy done"}' https://hooks.slack.com/services/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
curl https://api.openai.com/v1/models -H "Authorization: Bearer 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"
curl https://api.anthropic.com/v1/messages -H "x-api-key: sk-ant-api03-cQVM15qVqWUM8Pcc6NBv-uXbnoS6ct05wlVzDQMUFw9W8rGsLn9ARgshJXEWcLpw2DrUT_LUqdkaRifyYpSV2vbUaR5QGAA" -H "anthropic-version: 2023-06-01" -H "content-type: application/json" -d @req.json
curl -s --cookie "session=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0NzdjMjY1NS05ODc1LTQ4M2YtYWNjNS02NGQxZTA5ZTBlNTIiLCJpYXQiOjE3MTAzMjQ5NjUsImV4cCI6MTcxMDMyODU2NSwicm9sZSI6InNlcnZpY2UifQ.51Yt_UHeoUSjMbpRrdWjR4l1QwqhvYfd_FcOIJTreBE" https://billing.acme-corp.net/api/v1/me | jq .
export STRIPE_API_KEY=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
stripe listen --forward-to localhost:8080/webhooks/stripe
curl https://api.sendgrid.com/v3/user/profile -H "Authorization: Bearer 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"
curl -u "SK553479e1853c68ff624b317b8581d42e:dukMxKs1oISBQTZtp0lgTW60dVROaYdd" https://api.twilio.com/2010-04-01/Accounts.json
curl -H "Authorization: Bearer irV7DkOUh0aqa3PxD4PNV0yisdHBLptZx39zRcDQ" https://api.acme-corp.net/internal/v1/reindex
vault login -method=token hvs.M_lS7fJarrj9zctSxzpsYuHnqmoMtJMHeAB5zaTrWKXd9DETBhMHnNu1lxytAMVFgBqJjvRDQu8kga0e2BUnjrikehw
./scripts/smoke.sh --env prod --auth-token g7aTfVIGBLJr7mT41xrYdRBeYqgM9FdscTMSpzdN
git log --oneline -5
git show 9f2c1ab
git checkout -b fix/rotate-keys
sha256sum dist/billing-2024.3.2.tar.gz
history | grep token
vim ~/.pgpass
env | grep -i key
echo $PATH
ls -la ~/.aws
cat ~/.aws/credentials
top -o %CPU
df -h /srv
journalctl -u billing-worker --since "2024-03-12 10:00" | grep -i error
ping -c 3 1.1.1.1
dig +short billing.acme-corp.net
curl -s ifconfig.me
