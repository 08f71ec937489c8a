// Firebase and third-party clients for the customer portal.
import { initializeApp } from "firebase/app";
import { getAuth, signInWithEmailAndPassword } from "firebase/auth";
import sgMail from "@sendgrid/mail";
import twilio from "twilio";

const firebaseConfig = {
  apiKey: "AIzaaWERgYjuvS-Qra1bX4mxVIyaUHhMMNxgeEB",
  authDomain: "acme-portal-prod.firebaseapp.com",
  projectId: "acme-portal-prod",
  storageBucket: "acme-portal-prod.appspot.com",
  messagingSenderId: "1177055328359790527",
  appId: "1:1488666894104089414:web:a7b1d9b1175bad4a8129ab",
  measurementId: "G-A1A215A9A9",
};

export const app = initializeApp(firebaseConfig);
export const auth = getAuth(app);

sgMail.setApiKey("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");
const sms = twilio("SK6f62175faada981ce589953b5fb75979", process.env.TWILIO_API_SECRET, {
  accountSid: "AC7794bdbcfe4be2df8c6d7d92ca0f2508",
});

export async function login(email, password) {
  if (!email || !password) {
    throw new Error("email and password are required");
  }
  const credential = await signInWithEmailAndPassword(auth, email, password);
  const token = await credential.user.getIdToken();
  localStorage.setItem("token", token);
  return credential.user;
}

export function authHeaders() {
  const token = localStorage.getItem("token");
  return token ? { Authorization: `Bearer ${token}` } : {};
}

export async function sendReceipt(to, invoice) {
  await sgMail.send({
    to,
    from: "receipts@acme-corp.net",
    templateId: "d-795b7754141e5bf06ea42fedc7672b91",
    dynamicTemplateData: { invoice: invoice.number, total: invoice.total },
  });
}

export async function textCode(to, code) {
  return sms.messages.create({ to, from: "+19338227571", body: `Your Acme code is ${code}` });
}
