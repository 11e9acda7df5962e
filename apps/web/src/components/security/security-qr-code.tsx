/** The chat's security code as a QR code, for the other person's camera ("Scan code" on their screen). */
import { QrSvg } from '@/components/qr-svg';
import { securityQrText } from '@/lib/security-qr';

export function SecurityQrCode({ groups }: { groups: readonly string[] }) {
  return <QrSvg text={securityQrText(groups)} label="Security code as a QR code" testId="security-qr" />;
}
