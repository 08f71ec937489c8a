import axios, { AxiosInstance } from "axios";
import Anthropic from "@anthropic-ai/sdk";

export interface Credentials {
  username: string;
  password: string;
  token?: string | null;
}

// Service token for the internal reporting API (read-only).
const REPORTING_TOKEN = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI5MTVhYjU1NS04M2QyLTQ5MTItYjFjYy1hMjliNDU3ZDJiZGYiLCJpYXQiOjE3MTAzMDY2MTUsImV4cCI6MTcxMDMxMDIxNSwicm9sZSI6ImFkbWluIn0.8blGyaV_jvgiq1OmJ-uQ_mP-0_v8lmSRdbk-Db3nVzE";
const GH_TOKEN = "ghu_7WBy6bzwMU8EYQdBzjYcPSHIJb5Zfn07OhXv";

export const anthropic = new Anthropic({
  apiKey: process.env.ANTHROPIC_API_KEY ?? "sk-ant-api03-luXovYB0DhyxltLqjxnN0CUuZ9u41ThzDSA_kxdGpeLd3qRjCt86yTdB2uxyMDW5qvsGTczzx5WXyPQUmOBeL5w6gOiifAA",
});

export function reportingClient(): AxiosInstance {
  return axios.create({
    baseURL: "https://reporting.acme-corp.net/api",
    timeout: 10_000,
    headers: { Authorization: `Bearer ${REPORTING_TOKEN}` },
  });
}

export async function openIssue(title: string, body: string): Promise<number> {
  const response = await axios.post(
    "https://api.github.com/repos/acme/billing/issues",
    { title, body },
    { headers: { Authorization: `token ${GH_TOKEN}`, Accept: "application/vnd.github+json" } },
  );
  return response.data.number;
}

export function validate(credentials: Credentials): string[] {
  const problems: string[] = [];
  if (credentials.password.length < 12) problems.push("password: at least 12 characters");
  if (credentials.password === credentials.username) problems.push("password: not your username");
  if (!/[0-9]/.test(credentials.password)) problems.push("password: at least one digit");
  return problems;
}
